//go:build unix

package otelask_test

import (
	"syscall"
	"time"
)

// processCPU returns the CPU time the whole process has used so far (every
// thread, user and system): what the benchmark's asks, the SDK's batching
// goroutine and the garbage collector cost together.
func processCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
