package askuser

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/askuser-go/askuser/store"
)

// followingCard is an EventDriven responder that follows the sessions it
// is told to and keeps every ask it is told about.
type followingCard struct {
	s    *Sessions
	mu   sync.Mutex
	asks []*Ask
}

func (c *followingCard) FollowSessions(s *Sessions) { c.s = s }
func (c *followingCard) Asked(a *Ask) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.asks = append(c.asks, a)
}
func (c *followingCard) Respond(ctx context.Context, a *Ask) error {
	c.Asked(a)
	<-ctx.Done()
	return nil
}

// plainCard is an EventDriven responder that does not follow sessions.
type plainCard struct{ c *followingCard }

func (p plainCard) Asked(a *Ask)                              { p.c.Asked(a) }
func (p plainCard) Respond(ctx context.Context, a *Ask) error { return p.c.Respond(ctx, a) }

func (c *followingCard) take() []*Ask {
	c.mu.Lock()
	defer c.mu.Unlock()
	as := c.asks
	c.asks = nil
	return as
}

// heldHere counts what a replica holds of the store's asks: the asks it
// serves, and the ends it remembers until its feed has brought them.
func heldHere(o *Orchestrator) int {
	o.fl.mu.Lock()
	defer o.fl.mu.Unlock()
	return len(o.fl.asks) + len(o.fl.endedRevs)
}

const heldCall = `{"questions":[{"id":"env","header":"Env","question":"Where?","options":[{"label":"staging","description":"safe"},{"label":"production","description":"real"}]}]}`

// TestFleetHoldsOnlyWhatItServes: a replica holds in memory only the asks
// it serves. One whose card follows a session holds that session's pending
// asks until they end, wherever they began; one whose card follows nothing
// holds none of the fleet's pending asks, not even those it began (its
// card is told of them when a page follows their session); a responder
// that does not follow sessions is shown, and holds, the asks begun on its
// replica; and once every ask is final, no replica holds any.
func TestFleetHoldsOnlyWhatItServes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := store.NewMemory(0)
		quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
		var orch []*Orchestrator
		var cards []*followingCard
		for i := range 4 {
			c := &followingCard{}
			var r Responder = c
			if i == 3 {
				r = plainCard{c} // shows what it is given, follows nothing
			}
			o := &Orchestrator{Responder: r, Asks: st, Logger: quiet}
			if err := o.Ready(context.Background()); err != nil {
				t.Fatal(err)
			}
			defer func() { o.Close(); o.WaitResponders() }()
			orch, cards = append(orch, o), append(cards, c)
		}
		stop, err := cards[1].s.Follow(context.Background(), "followed")
		if err != nil {
			t.Fatal(err)
		}
		defer stop()
		const n = 200
		for i := range n {
			session := "followed"
			if i%2 == 1 {
				session = fmt.Sprintf("other-%d", i)
			}
			if _, err := orch[0].Begin(context.Background(), Request{Session: session, ToolCallID: fmt.Sprintf("c%d", i), Arguments: []byte(heldCall)}); err != nil {
				t.Fatal(err)
			}
		}
		for i := range 10 {
			if _, err := orch[3].Begin(context.Background(), Request{Session: "plain", ToolCallID: fmt.Sprintf("p%d", i), Arguments: []byte(heldCall)}); err != nil {
				t.Fatal(err)
			}
		}
		synctest.Wait()
		if got := heldHere(orch[0]); got != 0 {
			t.Errorf("the replica that began %d asks, which no page looks at, holds %d", n, got)
		}
		if got := heldHere(orch[3]); got != 10 {
			t.Errorf("the replica whose responder shows the 10 asks it began holds %d", got)
		}
		if got := heldHere(orch[1]); got != n/2 {
			t.Errorf("the replica that follows the session of %d of them holds %d", n/2, got)
		}
		if got := heldHere(orch[2]); got != 0 {
			t.Errorf("a replica that serves none of the asks holds %d", got)
		}
		// Every ask ends at its deadline (300 s); the store's timers reach
		// one replica each.
		time.Sleep(301 * time.Second)
		synctest.Wait()
		for i, o := range orch {
			if got := heldHere(o); got != 0 {
				t.Errorf("replica %d holds %d asks once every ask is final", i, got)
			}
		}
		if as := cards[1].take(); len(as) != n/2 {
			t.Errorf("the follower was told of %d asks, want %d", len(as), n/2)
		}
	})
}
