package natsstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/askuser-go/askuser/secretstore"
	"github.com/askuser-go/askuser/store"
)

// Config says where and how a Store keeps its state. The zero Config is
// ready to use, save for secrets, which need Keys.
type Config struct {
	// Prefix starts the name of every bucket and stream and the subjects
	// of the journal and the timers: letters, digits, '-' and '_'
	// (default "askuser"). Stores with different prefixes share nothing.
	Prefix string
	// Replicas is how many servers keep each bucket and stream (default
	// 1; 3 or 5 in a cluster that must survive losing a server).
	Replicas int
	// Retention is how long a pending ask is kept after its last write,
	// and so how long a final result stays there for replay (default
	// store.DefaultRetention; at least one second). A timer is kept as
	// long after it was set, and a key that came due as long after its
	// time.
	Retention time.Duration
	// TimerAckWait is how long a key stays with a caller of the asks' Due
	// that has gone silent (a process killed) before it goes to another
	// caller (default DefaultTimerAckWait; at least 100 ms). A caller
	// still working on a key tells the server so every third of it, up
	// to 30 times it. The first Open decides, as for a bucket's
	// retention.
	TimerAckWait time.Duration
	// FeedAckWait is how long a journal Feed's function has a record
	// before the record goes to another process (default
	// DefaultFeedAckWait; at least 100 ms). The first process to make a
	// feed decides.
	FeedAckWait time.Duration
	// JournalRetention, when set, is how long the journal keeps a record:
	// at least DuplicateWindow, so that a record outlives the window in
	// which a second record of its ask is dropped. A store opened with it
	// sets the stream's retention (shortening it drops the records
	// already older); one opened without it (0) leaves the stream's as it
	// is, and a new stream keeps every record for ever — so replicas that
	// do not say agree with those that do. A BindOnly store changes
	// nothing. A result older than the retention is no longer replayed
	// from the journal.
	JournalRetention time.Duration
	// Keys seals secrets. Required for Secrets; the key never goes to
	// NATS.
	Keys *secretstore.KeyRing
	// Memory keeps everything in the servers' memory instead of files:
	// for tests only, since a restart loses it.
	Memory bool
	// BindOnly binds to the buckets and the stream a service made, and
	// creates none: a tool that only reads a store (askuser journal
	// --nats, secret exec --nats) then fails, saying so, on a server where
	// no askuser service keeps its state, instead of leaving empty buckets
	// behind.
	BindOnly bool
}

// DuplicateWindow is how long the journal stream remembers an ask id: a
// second record of the same ask within it is dropped.
const DuplicateWindow = time.Hour

// DefaultTimerAckWait is Config.TimerAckWait's default: a deadline whose
// replica was killed while it handled it, or whose delivery a NATS node's
// kill lost on the way, is handed to another half a second later.
const DefaultTimerAckWait = 500 * time.Millisecond

// markerTTL is how long a pending bucket keeps the marker an expiry leaves.
const markerTTL = time.Minute

var validPrefix = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// A Store is askuser's state in one JetStream domain: pending asks and
// their timers, the journal, sealed secrets and remembered decisions. It is safe for
// concurrent use; it holds no goroutine and needs no closing (close the
// NATS connection when done).
type Store struct {
	js      jetstream.JetStream
	cfg     Config
	pending jetstream.KeyValue
	// pendingStream is the pending bucket's stream, read from its
	// leader when a watch starts.
	pendingStream jetstream.Stream
	// timers is the stream of the asks' timers, with the consumer that
	// Due callers share.
	timers   jetstream.Stream
	secrets  jetstream.KeyValue
	consents jetstream.KeyValue
	journal  jetstream.Stream
}

// Open creates the buckets and the stream cfg names, or binds to them when
// they exist. Several processes may call it at once. An existing bucket or
// stream is left as it is, even when cfg asks for other replicas or
// retention: the first Open decides, and an operator changes them with
// NATS's own tools.
func Open(ctx context.Context, js jetstream.JetStream, cfg Config) (*Store, error) {
	if js == nil {
		return nil, errors.New("natsstore: Open needs a JetStream context")
	}
	if cfg.Prefix == "" {
		cfg.Prefix = "askuser"
	}
	if !validPrefix.MatchString(cfg.Prefix) {
		return nil, fmt.Errorf("natsstore: prefix %q: a prefix is letters, digits, '-' and '_'", cfg.Prefix)
	}
	if cfg.Replicas == 0 {
		cfg.Replicas = 1
	}
	if cfg.Replicas < 1 || cfg.Replicas > 5 {
		return nil, fmt.Errorf("natsstore: %d replicas: JetStream keeps 1 to 5", cfg.Replicas)
	}
	if cfg.Retention == 0 {
		cfg.Retention = store.DefaultRetention
	}
	if cfg.Retention < time.Second {
		return nil, fmt.Errorf("natsstore: retention %v: at least one second is required", cfg.Retention)
	}
	if cfg.TimerAckWait == 0 {
		cfg.TimerAckWait = DefaultTimerAckWait
	}
	if cfg.TimerAckWait < 100*time.Millisecond {
		return nil, fmt.Errorf("natsstore: timer ack wait %v: at least 100ms is required", cfg.TimerAckWait)
	}
	if cfg.FeedAckWait == 0 {
		cfg.FeedAckWait = DefaultFeedAckWait
	}
	if cfg.FeedAckWait < 100*time.Millisecond {
		return nil, fmt.Errorf("natsstore: feed ack wait %v: at least 100ms is required", cfg.FeedAckWait)
	}
	if cfg.JournalRetention < 0 || cfg.JournalRetention > 0 && cfg.JournalRetention < DuplicateWindow {
		return nil, fmt.Errorf("natsstore: journal retention %v: at least %v (the duplicate window) is required, or 0 to leave the journal's retention as it is (for ever on a new journal)", cfg.JournalRetention, DuplicateWindow)
	}
	s := &Store{js: js, cfg: cfg}
	var err error
	if s.pending, err = s.bucket(ctx, "pending", "askuser's pending asks and their final results", cfg.Retention); err != nil {
		return nil, err
	}
	if s.pendingStream, err = js.Stream(ctx, "KV_"+cfg.Prefix+"_pending"); err != nil {
		return nil, fmt.Errorf("natsstore: binding the pending bucket's stream: %w", err)
	}
	if s.timers, err = s.timerStream(ctx); err != nil {
		return nil, err
	}
	if s.secrets, err = s.bucket(ctx, "secrets", "askuser's sealed secrets", 0); err != nil {
		return nil, err
	}
	if s.consents, err = s.bucket(ctx, "consents", "askuser's remembered approval decisions", 0); err != nil {
		return nil, err
	}
	if s.journal, err = s.stream(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *Store) storage() jetstream.StorageType {
	if s.cfg.Memory {
		return jetstream.MemoryStorage
	}
	return jetstream.FileStorage
}

// bucket creates or binds the key-value bucket <prefix>_<name>. It makes
// the bucket's stream itself, as jetstream.CreateKeyValue would, but
// without direct gets: a direct get may be answered by a replica that is
// behind, and a compare-and-set store must read what was acknowledged.
func (s *Store) bucket(ctx context.Context, name, desc string, ttl time.Duration) (jetstream.KeyValue, error) {
	bucket := s.cfg.Prefix + "_" + name
	dup := 2 * time.Minute
	if ttl > 0 && ttl < dup {
		dup = ttl
	}
	cfg := jetstream.StreamConfig{
		Name:              "KV_" + bucket,
		Description:       desc,
		Subjects:          []string{"$KV." + bucket + ".>"},
		MaxMsgsPerSubject: 1,
		MaxBytes:          -1,
		MaxAge:            ttl,
		MaxMsgSize:        -1,
		MaxMsgs:           -1,
		MaxConsumers:      -1,
		Storage:           s.storage(),
		Replicas:          s.cfg.Replicas,
		AllowRollup:       true,
		DenyDelete:        true,
		Duplicates:        dup,
		Discard:           jetstream.DiscardNew,
	}
	if ttl > 0 {
		cfg.AllowMsgTTL = true
		cfg.SubjectDeleteMarkerTTL = min(markerTTL, ttl)
	}
	if !s.cfg.BindOnly {
		if err := s.create(ctx, cfg); err != nil {
			return nil, err
		}
	}
	kv, err := s.js.KeyValue(ctx, bucket)
	if errors.Is(err, jetstream.ErrBucketNotFound) && s.cfg.BindOnly {
		return nil, fmt.Errorf("natsstore: no bucket %s on this NATS server: no askuser service keeps its state here under the prefix %q (start askuser serve, or give its --nats and prefix)", bucket, s.cfg.Prefix)
	}
	if err != nil {
		return nil, fmt.Errorf("natsstore: binding bucket %s: %w", bucket, err)
	}
	return kv, nil
}

// create makes the stream unless one of its name exists.
func (s *Store) create(ctx context.Context, cfg jetstream.StreamConfig) error {
	_, err := s.js.CreateStream(ctx, cfg)
	if err == nil || errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
		return nil
	}
	return fmt.Errorf("natsstore: creating stream %s: %w", cfg.Name, err)
}

func (s *Store) stream(ctx context.Context) (jetstream.Stream, error) {
	cfg := jetstream.StreamConfig{
		Name:         s.cfg.Prefix + "_journal",
		Description:  "askuser's journal: one record per finalized ask, by ask id",
		Subjects:     []string{s.cfg.Prefix + ".journal.>"},
		Storage:      s.storage(),
		Replicas:     s.cfg.Replicas,
		Duplicates:   DuplicateWindow,
		MaxMsgs:      -1,
		MaxBytes:     -1,
		MaxConsumers: -1,
		MaxMsgSize:   -1,
		DenyDelete:   true,
		DenyPurge:    true,
		Discard:      jetstream.DiscardNew,
		MaxAge:       s.cfg.JournalRetention,
	}
	if !s.cfg.BindOnly {
		if err := s.create(ctx, cfg); err != nil {
			return nil, err
		}
	}
	st, err := s.js.Stream(ctx, cfg.Name)
	if errors.Is(err, jetstream.ErrStreamNotFound) && s.cfg.BindOnly {
		return nil, fmt.Errorf("natsstore: no stream %s on this NATS server: no askuser service keeps its state here under the prefix %q (start askuser serve, or give its --nats and prefix)", cfg.Name, s.cfg.Prefix)
	}
	if err != nil {
		return nil, fmt.Errorf("natsstore: binding stream %s: %w", cfg.Name, err)
	}
	if s.cfg.BindOnly || cfg.MaxAge == 0 || st.CachedInfo().Config.MaxAge == cfg.MaxAge {
		return st, nil
	}
	// The stream was made with another retention: this store's applies
	// from now on.
	sc := st.CachedInfo().Config
	sc.MaxAge = cfg.MaxAge
	if st, err = s.js.UpdateStream(ctx, sc); err != nil {
		return nil, fmt.Errorf("natsstore: setting the journal's retention to %v on stream %s: %w", cfg.MaxAge, cfg.Name, err)
	}
	return st, nil
}

// timerStream creates or binds the stream of the asks' timers and the
// consumer Due callers share. It is a work queue: a key that came due
// leaves the stream once a Due caller acknowledges it, and a schedule, on
// a subject no consumer reads, stays until it fires (the server then
// removes it) or is replaced (a schedule rolls up its subject).
func (s *Store) timerStream(ctx context.Context) (jetstream.Stream, error) {
	p := s.cfg.Prefix
	cfg := jetstream.StreamConfig{
		Name:              p + "_timers",
		Description:       "askuser's timers: one schedule per pending ask, and the asks whose time has come",
		Subjects:          []string{p + ".timers.>"},
		Retention:         jetstream.WorkQueuePolicy,
		Storage:           s.storage(),
		Replicas:          s.cfg.Replicas,
		MaxAge:            s.cfg.Retention,
		MaxMsgs:           -1,
		MaxBytes:          -1,
		MaxConsumers:      -1,
		MaxMsgSize:        -1,
		Duplicates:        min(2*time.Minute, s.cfg.Retention),
		Discard:           jetstream.DiscardOld, // schedules refuse DiscardNew
		AllowMsgSchedules: true,
		AllowRollup:       true,
	}
	if !s.cfg.BindOnly {
		if err := s.create(ctx, cfg); err != nil {
			return nil, err
		}
	}
	st, err := s.js.Stream(ctx, cfg.Name)
	if errors.Is(err, jetstream.ErrStreamNotFound) && s.cfg.BindOnly {
		return nil, fmt.Errorf("natsstore: no stream %s on this NATS server: no askuser service keeps its state here under the prefix %q (start askuser serve, or give its --nats and prefix)", cfg.Name, p)
	}
	if err != nil {
		return nil, fmt.Errorf("natsstore: binding stream %s: %w", cfg.Name, err)
	}
	if s.cfg.BindOnly {
		return st, nil
	}
	// The consumer is made here when the store is new; when the stream
	// is there already (a replica starting, a cluster restarted) it may
	// take a while to have a leader, and Due binds or makes it then,
	// trying again until it can: a replica is not held back from serving.
	cctx, cancel := context.WithTimeout(ctx, consumerWait)
	defer cancel()
	if _, err := dueConsumerOf(cctx, st, s.dueConfig()); err != nil && cctx.Err() == nil {
		return nil, err
	}
	return st, nil
}

// consumerWait bounds how long Open waits for the consumer of due keys.
const consumerWait = 5 * time.Second

// dueConfig is the consumer Due callers share, as Config says.
func (s *Store) dueConfig() jetstream.ConsumerConfig {
	p := s.cfg.Prefix
	return jetstream.ConsumerConfig{
		Durable:       dueConsumer(p),
		Description:   "askuser's callers of Due, in every process: each key that came due goes to one",
		FilterSubject: p + ".timers.due.>",
		DeliverPolicy: jetstream.DeliverAllPolicy,
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       s.cfg.TimerAckWait,
		MaxDeliver:    -1,
		MemoryStorage: s.cfg.Memory,
	}
}

// dueConsumerOf binds the consumer of due keys, or makes it as cfg says
// when there is none: the first to make it decides its settings.
func dueConsumerOf(ctx context.Context, st jetstream.Stream, cfg jetstream.ConsumerConfig) (jetstream.Consumer, error) {
	c, err := st.Consumer(ctx, cfg.Durable)
	if err == nil || !errors.Is(err, jetstream.ErrConsumerNotFound) {
		if err != nil {
			err = fmt.Errorf("natsstore: binding the consumer %s of due asks: %w", cfg.Durable, err)
		}
		return c, err
	}
	c, err = st.CreateConsumer(ctx, cfg)
	if errors.Is(err, jetstream.ErrConsumerExists) {
		c, err = st.Consumer(ctx, cfg.Durable)
	}
	if err != nil {
		return nil, fmt.Errorf("natsstore: creating the consumer %s of due asks: %w", cfg.Durable, err)
	}
	return c, nil
}

// dueConsumer names the consumer Due callers share.
func dueConsumer(prefix string) string { return prefix + "_due" }

// digest is a key-safe, fixed-length name for any string: the hex SHA-256
// of it. Session ids and secret names can be anything up to 64 KiB
// ("../x", NUL, dots), longer than a NATS subject may be; their digests are
// opaque and short, and leave the names themselves out of NATS.
func digest(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}
