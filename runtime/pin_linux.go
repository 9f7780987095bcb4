//go:build linux

package runtime

import "golang.org/x/sys/unix"

// affinityCPUs lists the CPUs the process may run on.
func affinityCPUs() []int {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return nil
	}
	var cpus []int
	for c := range 1024 {
		if set.IsSet(c) {
			cpus = append(cpus, c)
		}
	}
	return cpus
}

// pinThread binds the calling OS thread (the caller holds LockOSThread) to
// one CPU. Errors are ignored: pinning is an optimisation.
func pinThread(cpu int) {
	var set unix.CPUSet
	set.Set(cpu)
	_ = unix.SchedSetaffinity(0, &set) // pid 0: the calling thread
}

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
