//go:build !unix

package otelask_test

import "time"

// processCPU reports that this system gives the benchmark no process CPU
// clock.
func processCPU() (time.Duration, bool) { return 0, false }
