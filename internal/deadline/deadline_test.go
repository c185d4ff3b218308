package deadline_test

import (
	"testing"
	"time"

	"github.com/askuser-go/askuser/internal/deadline"
)

// TestStamp checks the deadlines: asked_at is now in UTC,
// expires_at = asked_at + timeout, nudge_at = expires_at − min(60,
// ceil(timeout/5)) seconds, and asked_at ≤ nudge_at < expires_at.
func TestStamp(t *testing.T) {
	now := time.Date(2026, 11, 30, 10, 0, 0, 123456789, time.FixedZone("CET", 3600))
	for _, tt := range []struct{ timeout, lead int }{{1, 1}, {4, 1}, {5, 1}, {6, 2}, {7, 2}, {120, 24}, {299, 60}, {300, 60}} {
		var c struct{ AskedAt, NudgeAt, ExpiresAt time.Time }
		c.AskedAt, c.NudgeAt, c.ExpiresAt = deadline.Stamps(now, tt.timeout)
		if !c.AskedAt.Equal(now) || c.AskedAt.Location() != time.UTC {
			t.Errorf("timeout %d: asked_at %v, want %v in UTC", tt.timeout, c.AskedAt, now)
		}
		if want := now.Add(time.Duration(tt.timeout) * time.Second); !c.ExpiresAt.Equal(want) {
			t.Errorf("timeout %d: expires_at %v, want %v", tt.timeout, c.ExpiresAt, want)
		}
		if want := c.ExpiresAt.Add(-time.Duration(tt.lead) * time.Second); !c.NudgeAt.Equal(want) {
			t.Errorf("timeout %d: nudge_at %v, want %ds before expires_at", tt.timeout, c.NudgeAt, tt.lead)
		}
		if c.NudgeAt.Before(c.AskedAt) || !c.NudgeAt.Before(c.ExpiresAt) {
			t.Errorf("timeout %d: want asked_at ≤ nudge_at < expires_at, got %v %v %v", tt.timeout, c.AskedAt, c.NudgeAt, c.ExpiresAt)
		}
	}
}
