package runtime

import (
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// threadProbe reads another thread's CPU clock and scheduler state (the
// monitor's, monitor.go). It keeps the thread's /proc stat file open
// once it has needed it.
type threadProbe struct {
	fd  int // /proc/self/task/<tid>/stat, or 0 before it is opened
	tid int // the thread fd belongs to
}

// canWatchThreads is whether the monitor can tell blocked workers here.
const canWatchThreads = true

// threadID returns the calling thread's ID.
func threadID() int { return unix.Gettid() }

// cpuTime returns the CPU time thread tid has run, and whether it could be
// read. The clock of another thread of the process is
// clock_gettime(MAKE_THREAD_CPUCLOCK(tid, CPUCLOCK_SCHED)), whose value
// includes the run in progress if the thread is on a CPU.
func (p *threadProbe) cpuTime(tid int) (time.Duration, bool) {
	const cpuClockSched, cpuClockPerThread = 2, 4
	var ts unix.Timespec
	if unix.ClockGettime(int32(^tid<<3|cpuClockPerThread|cpuClockSched), &ts) != nil {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}

// runnable reports whether thread tid is runnable (on a CPU or waiting for
// one): the state field of its /proc stat, "R".
func (p *threadProbe) runnable(tid int) bool {
	if p.tid != tid {
		p.close()
		fd, err := unix.Open("/proc/self/task/"+strconv.Itoa(tid)+"/stat", unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			return true // cannot tell: assume the thread runs
		}
		p.fd, p.tid = fd, tid
	}
	var buf [512]byte
	n, err := unix.Pread(p.fd, buf[:], 0)
	if err != nil {
		return true
	}
	// The state follows the command name, which is in parentheses and
	// may hold any character: look after the last ')'.
	for i := n - 1; i > 0; i-- {
		if buf[i] == ')' {
			return i+2 < n && buf[i+2] == 'R'
		}
	}
	return true
}

// processCPU returns the CPU time the process has used, all threads.
func processCPU() time.Duration {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_PROCESS_CPUTIME_ID, &ts) != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}

func (p *threadProbe) close() {
	if p.tid != 0 {
		unix.Close(p.fd)
		p.fd, p.tid = 0, 0
	}
}
