package web

import "time"

// SetStreamWriteTimeout sets how long one write to an event stream may take
// until the test ends.
func SetStreamWriteTimeout(d time.Duration) (restore func()) {
	saved := writeTimeout
	writeTimeout = d
	return func() { writeTimeout = saved }
}

// Shows reports whether the card holds the ask id: the orchestrator lists
// an ask as pending before its short-lived goroutine has told the card.
func (r *Responder) Shows(id string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.asks[id] != nil
}
