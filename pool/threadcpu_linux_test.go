//go:build linux

package pool_test

import (
	"time"

	"golang.org/x/sys/unix"
)

// threadCPU returns the calling thread's CPU time; with ok false, the
// caller falls back to the wall clock.
func threadCPU() (d time.Duration, ok bool) {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts) != nil {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}
