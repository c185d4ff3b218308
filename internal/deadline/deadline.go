// Package deadline computes the stamps of an ask: when it was asked, when a
// responder shows a countdown, and when it expires. The root package and
// every contract stamp with it, so they agree to the nanosecond.
package deadline

import "time"

// Stamps returns the deadlines of a wait of timeoutSeconds that starts at
// now: asked is now in UTC, expires is asked plus the wait, and nudge is
// expires less min(60, ceil(timeoutSeconds/5)) seconds, so that
// asked ≤ nudge < expires for any wait of at least one second.
func Stamps(now time.Time, timeoutSeconds int) (asked, nudge, expires time.Time) {
	asked = now.UTC()
	expires = asked.Add(time.Duration(timeoutSeconds) * time.Second)
	lead := (timeoutSeconds + 4) / 5
	if lead > 60 {
		lead = 60
	}
	nudge = expires.Add(-time.Duration(lead) * time.Second)
	return asked, nudge, expires
}
