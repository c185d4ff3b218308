package natsstore

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/askuser-go/askuser/store"
)

// Asks returns the store's pending asks as a store.Pending: entries in the
// <prefix>_pending bucket, whose revisions are the bucket's stream
// sequence numbers, and timers in the <prefix>_timers stream.
//
// Get and List are answered by the leader of the bucket's stream, so that
// they see every write acknowledged before them: List asks which keys are
// under its prefix, then reads each, several at a time. Changes starts
// after the last revision the leader has when it is called.
//
// A timer is a message on <prefix>.timers.at.<key> that the server
// publishes on <prefix>.timers.due.<key> at its time; a newer one on the
// same subject replaces it. The callers of Due, in every process, share
// one durable consumer of those: a key goes to one of them, and comes
// again Config.TimerAckWait later unless acknowledged. While f runs, Due
// tells the server every third of TimerAckWait that the key is in hand,
// so a process that dies gives its keys up after TimerAckWait while a
// slow f (a store electing a leader) keeps its key; f's context ends
// dueWorkFactor times TimerAckWait after f was called. A key whose f
// returns nil is acknowledged (even late: it may by then be with another
// caller), one whose f fails comes again after a tenth of a second,
// doubling with each delivery up to 16 s, and one whose Due's context
// ended while f ran comes again at once. A Schedule made in the instant the key's previous timer
// fires may be lost (the server removes the schedule as it publishes the
// key), though the key still comes due from the timer that fired; and a key
// scheduled again while an f has it can reach another caller before that f
// returns, if its new time comes first.
func (s *Store) Asks() store.Pending {
	p := s.cfg.Prefix
	return &asks{
		js:        s.js,
		kv:        s.pending,
		stream:    s.pendingStream,
		timers:    s.timers,
		atSubject: p + ".timers.at.",
		dueSubj:   p + ".timers.due.",
		due:       s.dueConfig(),
		bindOnly:  s.cfg.BindOnly,
	}
}

type asks struct {
	js        jetstream.JetStream
	kv        jetstream.KeyValue
	stream    jetstream.Stream // the bucket's
	timers    jetstream.Stream
	atSubject string                   // a schedule's subject, before its key
	dueSubj   string                   // a due key's subject, before the key
	due       jetstream.ConsumerConfig // the durable consumer of due keys
	bindOnly  bool                     // a BindOnly store makes no consumer
}

// Keys and prefixes as the bucket takes them: tokens joined by dots, a
// prefix ending with one, or empty for every key.
var (
	validKey        = regexp.MustCompile(`^[-/_=a-zA-Z0-9]+(\.[-/_=a-zA-Z0-9]+)*$`)
	validListPrefix = regexp.MustCompile(`^([-/_=a-zA-Z0-9]+\.)*$`)
)

func (a *asks) Create(ctx context.Context, key string, data []byte) (uint64, error) {
	return kvCreate(ctx, a.kv, "pending ask", key, data)
}

func (a *asks) Get(ctx context.Context, key string) (store.Entry, error) {
	return kvGet(ctx, a.kv, "pending ask", key)
}

// nonNil keeps empty data apart from a removal's nil.
func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

func (a *asks) Update(ctx context.Context, key string, data []byte, rev uint64) (uint64, error) {
	return kvUpdate(ctx, a.kv, "pending ask", key, data, rev)
}

// List asks the leader of the bucket's stream which keys are under prefix
// (one stream info request), and reads them from it, listWorkers at a
// time. (A filtered watch would be quicker on one server, but JetStream may
// serve it from a replica that is behind.)
func (a *asks) List(ctx context.Context, prefix string) ([]store.Entry, error) {
	if !validListPrefix.MatchString(prefix) {
		return nil, fmt.Errorf("natsstore: listing pending asks under %q: a prefix is keys' first tokens, each followed by a dot (or empty, for every key)", prefix)
	}
	subject := "$KV." + a.kv.Bucket() + "."
	info, err := a.stream.Info(ctx, jetstream.WithSubjectFilter(subject+prefix+">"))
	if err != nil {
		return nil, fmt.Errorf("natsstore: listing pending asks under %s: %w", prefix, err)
	}
	keys := make(chan string, len(info.State.Subjects))
	for subj := range info.State.Subjects {
		keys <- strings.TrimPrefix(subj, subject)
	}
	close(keys)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu    sync.Mutex
		out   []store.Entry
		first error
		wg    sync.WaitGroup
	)
	for range min(listWorkers, len(info.State.Subjects)) {
		wg.Go(func() {
			for key := range keys {
				e, err := a.Get(ctx, key)
				mu.Lock()
				switch {
				case errors.Is(err, store.ErrNotFound):
					// Removed: what is left is its marker.
				case err != nil:
					if first == nil {
						first = err
					}
					cancel()
				default:
					out = append(out, e)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if first != nil {
		return nil, fmt.Errorf("natsstore: listing pending asks under %s: %w", prefix, first)
	}
	slices.SortFunc(out, func(x, y store.Entry) int { return cmp.Compare(x.Revision, y.Revision) })
	return out, nil
}

// listWorkers is how many entries List reads at once.
const listWorkers = 16

// Changes follows the bucket's stream from the revision after the last
// one its leader has. (A watcher of new writes alone would start after the
// last revision of the server that serves it, which may be behind: it
// would hand over writes made before the call.)
func (a *asks) Changes(ctx context.Context, f func(store.Entry)) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	info, err := a.stream.Info(ctx)
	if err != nil {
		return fmt.Errorf("natsstore: following pending asks: %w", err)
	}
	last := info.State.LastSeq
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w, err := a.kv.WatchAll(wctx, jetstream.IncludeHistory(), jetstream.ResumeFromRevision(last+1))
	if err != nil {
		return fmt.Errorf("natsstore: following pending asks: %w", err)
	}
	defer stopWatcher(w)
	f(store.Entry{})
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case e, ok := <-w.Updates():
			switch {
			case !ok:
				if err := ctx.Err(); err != nil {
					return err
				}
				return errors.New("natsstore: the feed of pending asks ended: the NATS connection was closed")
			case e == nil || e.Revision() <= last:
				// The watcher's own "caught up", or (should the server
				// start early) what came before the call.
			case e.Operation() != jetstream.KeyValuePut:
				f(store.Entry{Key: e.Key(), Revision: e.Revision()})
			default:
				f(store.Entry{Key: e.Key(), Data: nonNil(e.Value()), Revision: e.Revision()})
			}
		}
	}
}

// Headers of a message schedule, as nats-server reads them.
const (
	hdrSchedule       = "Nats-Schedule"        // "@at <RFC 3339 time>"
	hdrScheduleTarget = "Nats-Schedule-Target" // the subject the server publishes on
)

// Schedule publishes the key's schedule; the server rolls up the subject,
// so that the newest schedule is the key's only one. A time already past
// fires at once (within the server's quarter of a second).
func (a *asks) Schedule(ctx context.Context, key string, at time.Time) error {
	return a.schedule(ctx, key, at, false)
}

// ScheduleNew sets key's timer as Schedule does, but only when the key has
// no time scheduled (none set, or the last one fired): otherwise it
// changes nothing and returns an error wrapping store.ErrExists. The
// orchestrator sets a new ask's first timer with it, so that a retried
// tool call never moves the timer of the ask that holds its key, and the
// retry needs no read of the key before it. The stream refuses the
// publish when the key's subject holds a schedule (an expected last
// sequence of 0 on it); a replicated stream may also refuse it while
// another publish to the key is in flight, which says ErrExists too,
// though the other may yet fail.
func (a *asks) ScheduleNew(ctx context.Context, key string, at time.Time) error {
	return a.schedule(ctx, key, at, true)
}

func (a *asks) schedule(ctx context.Context, key string, at time.Time, onlyNew bool) error {
	if !validKey.MatchString(key) {
		return fmt.Errorf("natsstore: scheduling pending ask %q: a key is letters, digits, '-', '_', '=', '/' and dots between them", key)
	}
	m := nats.NewMsg(a.atSubject + key)
	m.Header.Set(hdrSchedule, "@at "+at.UTC().Format(time.RFC3339Nano))
	m.Header.Set(hdrScheduleTarget, a.dueSubj+key)
	opts := []jetstream.PublishOpt{jetstream.WithExpectStream(a.timers.CachedInfo().Config.Name)}
	if onlyNew {
		opts = append(opts, jetstream.WithExpectLastSequencePerSubject(0))
	}
	_, err := a.js.PublishMsg(ctx, m, opts...)
	switch {
	case err == nil:
		return nil
	case onlyNew && isWrongLastSequence(err):
		return fmt.Errorf("natsstore: scheduling pending ask %s: it has a time scheduled: %w", key, store.ErrExists)
	}
	return fmt.Errorf("natsstore: scheduling pending ask %s: %w", key, err)
}

// isWrongLastSequence reports whether the stream refused a publish
// because the subject's last sequence was not the one expected (error
// 10071; 10164 from a replicated stream).
func isWrongLastSequence(err error) bool {
	var apiErr *jetstream.APIError
	if !errors.As(err, &apiErr) {
		return false
	}
	return apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence || apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequenceConstant
}

// Redeliveries of a key whose f failed: a tenth of a second after the
// first delivery, doubling with each up to maxNakDelay. A deadline that
// failed in an election is tried again soon after the new leader is in.
const (
	nakDelay    = 100 * time.Millisecond
	maxNakDelay = 16 * time.Second
)

// dueWorkFactor bounds how long f may keep a key, in ack waits (30 s at
// the default): the key is kept in hand while f runs, up to then.
const dueWorkFactor = 30

// Pulls: a pull request's server that goes silent for two heartbeats (a
// NATS node killed, a consumer electing a leader) is noticed, and the
// next pull is sent pullPause later.
const (
	pullHeartbeat = time.Second
	pullPause     = 100 * time.Millisecond
)

// Due pulls one key at a time from the shared consumer, so that no key
// waits in this process, its time to be acknowledged running out, while
// f has another.
func (a *asks) Due(ctx context.Context, f func(ctx context.Context, key string) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	var c jetstream.Consumer
	var err error
	if a.bindOnly {
		if c, err = a.timers.Consumer(ctx, a.due.Durable); err != nil {
			return fmt.Errorf("natsstore: binding the consumer %s of due asks: %w", a.due.Durable, err)
		}
	} else if c, err = dueConsumerOf(ctx, a.timers, a.due); err != nil {
		return err
	}
	ackWait := c.CachedInfo().Config.AckWait
	return pullEach(ctx, c, "waiting for due asks", func(msg jetstream.Msg) { a.deliver(ctx, msg, ackWait, f) })
}

// pullEach pulls one message at a time from c and hands it to handle,
// until ctx ends or the consumer fails; doing names the wait in errors.
func pullEach(ctx context.Context, c jetstream.Consumer, doing string, handle func(jetstream.Msg)) error {
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		batch, err := c.Fetch(1, jetstream.FetchContext(ctx), jetstream.FetchHeartbeat(pullHeartbeat))
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("natsstore: %s: %w", doing, err)
		}
		var msg jetstream.Msg
		for m := range batch.Messages() {
			msg = m
		}
		if msg != nil {
			handle(msg)
			continue
		}
		switch err := batch.Error(); {
		case err == nil:
			// The pull request expired: pull again.
		case ctx.Err() != nil:
			return ctx.Err()
		case errors.Is(err, jetstream.ErrNoHeartbeat):
			// The consumer's server went silent (a reconnect, a new
			// leader): pull again, after a pause.
			if err := sleep(ctx, pullPause); err != nil {
				return err
			}
		default:
			return fmt.Errorf("natsstore: %s: %w", doing, err)
		}
	}
}

// deliver hands msg's key to f, and acknowledges it or has it come again.
func (a *asks) deliver(ctx context.Context, msg jetstream.Msg, ackWait time.Duration, f func(context.Context, string) error) {
	if ctx.Err() != nil {
		_ = msg.Nak() // for another caller, now
		return
	}
	fctx, cancel := context.WithTimeout(ctx, dueWorkFactor*ackWait)
	stop := keepInHand(fctx, msg, ackWait/3)
	err := f(fctx, strings.TrimPrefix(msg.Subject(), a.dueSubj))
	cancel()
	stop()
	switch {
	case ctx.Err() != nil:
		_ = msg.Nak()
	case err != nil:
		delay := maxNakDelay
		if md, merr := msg.Metadata(); merr == nil && md.NumDelivered < 9 {
			delay = min(nakDelay<<(md.NumDelivered-1), maxNakDelay)
		}
		_ = msg.NakWithDelay(delay)
	default:
		// Acknowledged and confirmed, or (the server did not answer in
		// time) the key comes again, which f allows.
		actx, cancel := context.WithTimeout(ctx, ackWait)
		_ = msg.DoubleAck(actx)
		cancel()
	}
}

// keepInHand tells the server every interval that msg is still being
// worked on, so that it does not go to another caller, until ctx ends or
// the returned stop is called (which returns once it has stopped). A
// word that does not reach the server (its consumer electing a leader)
// lets the message go to another caller after the ack wait, which Due's
// callers allow.
func keepInHand(ctx context.Context, msg jetstream.Msg, interval time.Duration) (stop func()) {
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				_ = msg.InProgress()
			case <-done:
				return
			case <-ctx.Done():
				return
			}
		}
	}()
	return func() {
		close(done)
		<-stopped
	}
}

// sleep waits for d, or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
