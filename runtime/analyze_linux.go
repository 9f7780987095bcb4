//go:build linux

package runtime

import "golang.org/x/sys/unix"

// threadCPUTime returns the CPU time of the calling thread in
// nanoseconds, and true; the analysis worker is locked to its thread.
// It is a system call, much slower than a wall-clock reading
// (docs/scale.md has the figures), which only an analysis asking for CPU
// time pays.
func threadCPUTime() (int64, bool) {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts) != nil {
		return 0, false
	}
	return ts.Nano(), true
}
