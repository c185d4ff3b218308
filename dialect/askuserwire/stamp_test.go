package askuserwire

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestStamp checks the deadlines: asked_at is now in UTC, expires_at =
// asked_at + timeout, nudge_at = expires_at − min(60, ceil(timeout/5))
// seconds, and asked_at ≤ nudge_at < expires_at.
func TestStamp(t *testing.T) {
	now := time.Date(2026, 11, 30, 10, 0, 0, 123456789, time.FixedZone("CET", 3600))
	for _, tt := range []struct{ timeout, lead int }{{1, 1}, {4, 1}, {5, 1}, {6, 2}, {7, 2}, {120, 24}, {299, 60}, {300, 60}, {301, 60}, {3600, 60}} {
		c := &Call{TimeoutSeconds: tt.timeout}
		c.Stamp(now)
		expires := now.Add(time.Duration(tt.timeout) * time.Second).UTC()
		want := &Call{
			TimeoutSeconds: tt.timeout,
			AskedAt:        now.UTC(),
			NudgeAt:        expires.Add(-time.Duration(tt.lead) * time.Second),
			ExpiresAt:      expires,
		}
		if diff := cmp.Diff(want, c); diff != "" {
			t.Errorf("timeout %d (-want +got):\n%s", tt.timeout, diff)
		}
		if c.AskedAt.Location() != time.UTC {
			t.Errorf("timeout %d: asked_at in %v, want UTC", tt.timeout, c.AskedAt.Location())
		}
		if c.NudgeAt.Before(c.AskedAt) || !c.NudgeAt.Before(c.ExpiresAt) {
			t.Errorf("timeout %d: want asked_at ≤ nudge_at < expires_at, got %v %v %v", tt.timeout, c.AskedAt, c.NudgeAt, c.ExpiresAt)
		}
	}
}

// TestStampOverwrites checks that stamping again replaces the stamps.
func TestStampOverwrites(t *testing.T) {
	c := &Call{TimeoutSeconds: 10}
	c.Stamp(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	later := time.Date(2026, 1, 1, 0, 1, 0, 0, time.UTC)
	c.Stamp(later)
	want := &Call{TimeoutSeconds: 10, AskedAt: later, NudgeAt: later.Add(8 * time.Second), ExpiresAt: later.Add(10 * time.Second)}
	if diff := cmp.Diff(want, c); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
