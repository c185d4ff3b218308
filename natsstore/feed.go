package natsstore

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// A Delivery is one journal record handed to a Feed's function.
type Delivery struct {
	// AskID is the record's ask id: the same on every try.
	AskID string
	// Record is the record as the journal keeps it (JSON).
	Record []byte
	// Attempt counts the tries of this record, from 1.
	Attempt int
}

// DefaultFeedAckWait is Config.FeedAckWait's default.
const DefaultFeedAckWait = 30 * time.Second

// Retries of a record whose function failed: a second after the first
// try, doubling with each up to maxFeedDelay.
const (
	feedDelay    = time.Second
	maxFeedDelay = 5 * time.Minute
)

var validFeed = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// Feed hands f every record the journal takes from the moment the feed
// named name is first made (by any process: it is durable, on the
// servers), until ctx ends. Every process that calls Feed with one name
// shares the feed: each record goes to one of them at a time, is
// acknowledged when f returns nil, and otherwise comes again — to any of
// them, a second later, then with doubling waits up to five minutes — as
// it does when the process that had it dies before f returned (after
// Config.FeedAckWait; f's context ends a tenth of it before). So every
// record reaches f at least once, whoever finalized it and whatever
// crashed; f makes a second delivery harmless (a webhook receiver keeps
// the ask ids it has seen).
//
// Make the feed before the records it must see: a process calls Feed (or
// MakeFeed) before it serves. Names are letters, digits, '-' and '_'.
func (j *Journal) Feed(ctx context.Context, name string, f func(context.Context, Delivery) error) error {
	c, err := j.feed(ctx, name)
	if err != nil {
		return err
	}
	ackWait := c.CachedInfo().Config.AckWait
	return pullEach(ctx, c, "waiting on the journal feed "+name, func(msg jetstream.Msg) { deliver(ctx, msg, ackWait, f) })
}

// MakeFeed makes the feed named name, or finds it made, without taking
// records from it: the records the journal takes from now on wait for Feed.
// The first process to make a feed decides its FeedAckWait.
func (j *Journal) MakeFeed(ctx context.Context, name string) error {
	_, err := j.feed(ctx, name)
	return err
}

func (j *Journal) feed(ctx context.Context, name string) (jetstream.Consumer, error) {
	if !validFeed.MatchString(name) {
		return nil, fmt.Errorf("natsstore: feed name %q: 1 to 64 letters, digits, '-' or '_'", name)
	}
	cfg := jetstream.ConsumerConfig{
		Durable:       j.prefix + "_feed_" + name,
		Description:   "askuser's journal feed " + name + ": each record to one process, until it is acknowledged",
		FilterSubject: j.prefix + ".journal.>",
		DeliverPolicy: jetstream.DeliverNewPolicy,
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       j.feedAckWait,
		MaxDeliver:    -1,
	}
	c, err := j.stream.Consumer(ctx, cfg.Durable)
	if errors.Is(err, jetstream.ErrConsumerNotFound) {
		c, err = j.stream.CreateConsumer(ctx, cfg)
		if errors.Is(err, jetstream.ErrConsumerExists) {
			c, err = j.stream.Consumer(ctx, cfg.Durable)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("natsstore: the journal feed %s: %w", name, err)
	}
	return c, nil
}

func deliver(ctx context.Context, msg jetstream.Msg, ackWait time.Duration, f func(context.Context, Delivery) error) {
	if ctx.Err() != nil {
		_ = msg.Nak()
		return
	}
	d := Delivery{AskID: msg.Headers().Get(jetstream.MsgIDHeader), Record: msg.Data(), Attempt: 1}
	if md, err := msg.Metadata(); err == nil {
		d.Attempt = int(md.NumDelivered)
	}
	deadline := time.Now().Add(ackWait - ackWait/10)
	fctx, cancel := context.WithDeadline(ctx, deadline)
	err := f(fctx, d)
	cancel()
	switch {
	case ctx.Err() != nil:
		_ = msg.Nak()
	case err != nil:
		delay := maxFeedDelay
		if n := d.Attempt; n >= 1 && n < 10 {
			delay = min(feedDelay<<(n-1), maxFeedDelay)
		}
		_ = msg.NakWithDelay(delay)
	default:
		actx, cancel := context.WithTimeout(ctx, max(time.Until(deadline), ackWait/10))
		_ = msg.DoubleAck(actx)
		cancel()
	}
}
