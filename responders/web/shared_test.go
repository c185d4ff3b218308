package web_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/responders/web"
)

// TestCloseLeavesSharedAsksPending: closing a card whose asks live in a
// shared store leaves them pending, for another replica's card, and does
// not wait for them to end; an ask of its own memory ends as before.
func TestCloseLeavesSharedAsksPending(t *testing.T) {
	store := askuser.NewMemoryPending(0)
	card := web.New(&web.Options{Logger: quiet})
	o := &askuser.Orchestrator{Responder: card, Asks: store, Logger: quiet}
	other := &askuser.Orchestrator{Asks: store, Logger: quiet}
	defer func() { o.Close(); o.Wait(); other.Close(); other.Wait() }()
	ctx := context.Background()
	if err := other.Ready(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := o.Begin(ctx, askuser.Request{Session: "s1", ToolCallID: "c1", Arguments: []byte(`{"questions":[{"header":"Env","question":"Which?","options":[{"label":"a","description":"x"},{"label":"b","description":"y"}]}]}`)}); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(time.Minute); len(other.Pending("s1")) == 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the other orchestrator never saw the ask")
		}
	}
	if err := card.Close(); err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	if _, err := other.Await(wctx, "s1", "c1"); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Await after Close: %v; want the ask still pending", err)
	}
}
