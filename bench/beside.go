package bench

import (
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// A server with two endpoints at once: one whose handler fans each
// request out over GOMAXPROCS goroutines (serveGoroutines, as a Go
// programmer writes it: the goroutine-heavy endpoint), and one under test. Both compute requests of the same size, so the share of requests
// one answers is its share of the CPU the two got. An endpoint called
// from ordinary goroutines should get its share beside ordinary
// goroutines (half, with as many clients as the other), as the same
// handler written with goroutines does, and the two should leave no CPU
// idle while requests wait.

// BesideRun is the outcome of RunBeside: requests each endpoint answered,
// and the share of the process's CPU capacity (GOMAXPROCS times the wall
// time) the process used meanwhile.
type BesideRun struct {
	Busy, Tested int
	CPUUsed      float64
}

// TestedShare is the tested endpoint's share of the requests answered.
func (r BesideRun) TestedShare() float64 {
	return float64(r.Tested) / float64(r.Busy+r.Tested)
}

// RunBeside runs the goroutine-heavy endpoint and tested at once, each
// with clients goroutines sending requests of n elements back to back,
// for the window and one request at least; every answer is checked
// against want (ok false if one was wrong). The window must be many of
// the Go scheduler's 10 ms time slices: a handler that never blocks holds
// its P for a slice, and over a few slices the shares say who ran first.
func RunBeside(clients int, window time.Duration, n int, tested func(n int) uint64, want uint64) (run BesideRun, ok bool) {
	var over atomic.Bool
	var counts [2]atomic.Int64
	var wrong atomic.Bool
	var wg sync.WaitGroup
	cpu0 := processCPUTime()
	start := time.Now()
	stop := time.AfterFunc(window, func() { over.Store(true) })
	defer stop.Stop()
	for c := range 2 * clients {
		serve, count := serveGoroutines, &counts[0]
		if c%2 == 1 {
			serve, count = tested, &counts[1]
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			// At least one request each, however late the client starts:
			// every endpoint's answers are checked.
			for done := false; !done; done = over.Load() {
				if serve(n) != want {
					wrong.Store(true)
				}
				count.Add(1)
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	used := processCPUTime() - cpu0
	run = BesideRun{
		Busy:    int(counts[0].Load()),
		Tested:  int(counts[1].Load()),
		CPUUsed: used.Seconds() / elapsed.Seconds() / float64(runtime.GOMAXPROCS(0)),
	}
	return run, !wrong.Load()
}

// processCPUTime is the CPU time the process used so far, user and
// system.
func processCPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
