package askuser_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/store"
)

// brokenFeed is a store whose feed can be broken off, as a NATS server
// that goes away breaks it; the feed started after that waits until
// mend is called before it is in place.
type brokenFeed struct {
	*store.Memory
	mu     sync.Mutex
	cancel context.CancelFunc
	gate   chan struct{}
}

func (s *brokenFeed) Changes(ctx context.Context, f func(store.Entry)) error {
	s.mu.Lock()
	gate := s.gate
	ctx, cancel := context.WithCancel(ctx)
	s.cancel = cancel
	s.mu.Unlock()
	defer cancel()
	if gate != nil {
		select {
		case <-gate:
		case <-ctx.Done():
			return errors.New("nats: no servers available")
		}
	}
	err := s.Memory.Changes(ctx, f)
	if ctx.Err() != nil {
		return errors.New("nats: connection closed")
	}
	return err
}

// breakOff ends the feed under way; the next waits for mend.
func (s *brokenFeed) breakOff() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gate = make(chan struct{})
	s.cancel()
}

func (s *brokenFeed) mend() {
	s.mu.Lock()
	defer s.mu.Unlock()
	close(s.gate)
	s.gate = nil
}

// TestReadyWhileFeedBrokenOff: Ready says the orchestrator is not
// following its store while the store's feed is broken off, and again that
// it is once the feed is in place. (It once said ready for good after the
// first time, so a readiness check could not see a replica that had lost
// the changes of asks others answered.)
func TestReadyWhileFeedBrokenOff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := &brokenFeed{Memory: store.NewMemory(0)}
		o := &askuser.Orchestrator{Responder: newEvents(), Asks: st, Logger: newDiscardLogger()}
		defer o.Close()
		ready := func() error {
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			return o.Ready(ctx)
		}
		if err := ready(); err != nil {
			t.Fatalf("Ready with the feed in place: %v", err)
		}
		st.breakOff()
		synctest.Wait()
		if err := ready(); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Ready with the feed broken off: %v; want it to wait until ctx ends", err)
		}
		st.mend()
		time.Sleep(10 * time.Second) // the feed is tried again after a backoff
		if err := ready(); err != nil {
			t.Fatalf("Ready with the feed in place again: %v", err)
		}
		o.Close()
		if err := o.Ready(context.Background()); !errors.Is(err, askuser.ErrOrchestratorClosed) {
			t.Fatalf("Ready after Close: %v; want ErrOrchestratorClosed", err)
		}
	})
}
