package web

import "time"

// SetStreamWriteTimeout sets how long one write to an event stream may take
// until the test ends.
func SetStreamWriteTimeout(d time.Duration) (restore func()) {
	saved := writeTimeout
	writeTimeout = d
	return func() { writeTimeout = saved }
}
