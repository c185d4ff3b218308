package askuser_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/askuser-go/askuser"
)

// TestRequestAskedAt: a request that says when its ask began keeps that
// deadline (an ask resumed from another process); a time in the future
// counts as now; one whose deadline has passed ends at once at the deadline.
func TestRequestAskedAt(t *testing.T) {
	const call = `{"questions":[{"header":"Env","question":"Which?","options":[{"label":"a","description":"a"},{"label":"b","description":"b"}]}],"timeout_seconds":300}`
	tests := []struct {
		name     string
		askedAgo time.Duration // how long before now the ask began; negative: in the future
		wait     time.Duration // how long Handle takes
	}{
		{"began 250 s ago", 250 * time.Second, 50 * time.Second},
		{"zero: now", 0, 300 * time.Second},
		{"in the future: now", -time.Hour, 300 * time.Second},
		{"deadline passed", time.Hour, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				o := &askuser.Orchestrator{Logger: newDiscardLogger(), Responder: askuser.ResponderFunc(func(ctx context.Context, a *askuser.Ask) error {
					<-ctx.Done()
					return ctx.Err()
				})}
				start := time.Now()
				var askedAt time.Time
				if tt.askedAgo != 0 {
					askedAt = start.Add(-tt.askedAgo)
				}
				out, err := o.Handle(t.Context(), askuser.Request{Session: "s", Arguments: []byte(call), AskedAt: askedAt})
				if err != nil {
					t.Fatal(err)
				}
				if got := time.Since(start); got != tt.wait {
					t.Errorf("Handle took %v, want %v", got, tt.wait)
				}
				if out.Reason != askuser.ReasonDeadline || out.Status != askuser.StatusTimedOut {
					t.Errorf("ended %s / %s, want the deadline's timed_out", out.Reason, out.Status)
				}
				wantAsked := start
				if tt.askedAgo > 0 {
					wantAsked = askedAt
				}
				if !out.Form.AskedAt.Equal(wantAsked) || !out.Form.ExpiresAt.Equal(wantAsked.Add(300*time.Second)) {
					t.Errorf("stamped %v … %v, want %v … %v", out.Form.AskedAt, out.Form.ExpiresAt, wantAsked, wantAsked.Add(300*time.Second))
				}
				o.WaitResponders()
			})
		})
	}
}
