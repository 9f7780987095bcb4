package runtime

import (
	"fmt"
	goruntime "runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/spindle-go/spindle/internal/testutil"
)

// BenchmarkMonitorRound times the monitor's own work in one round
// (monitorRound) while every worker computes, at 2 to 128 workers: the
// CPU time of the goroutine running the rounds (locked to its thread, so
// that the other threads' turns on the CPUs do not count), per round. A
// round's cost must not grow with the workers beyond a load or two each.
func BenchmarkMonitorRound(b *testing.B) {
	for _, n := range []int{2, 16, 64, 128} {
		b.Run(fmt.Sprintf("workers=%d", n), func(b *testing.B) {
			testutil.WithProcs(b, n)
			r, err := NewRegistry(Config{Workers: n, Spares: 4, Guests: 4})
			if err != nil {
				b.Fatal(err)
			}
			defer r.Close()
			r.stopSpares() // the benchmark makes the rounds
			var stop atomic.Bool
			var running sync.WaitGroup
			running.Add(n)
			for range n {
				r.Spawn("bench", func() {
					running.Done()
					for !stop.Load() {
					}
				})
			}
			running.Wait()
			defer stop.Store(true)
			watches := make([]runnerWatch, r.Slots())
			var look blockedLook
			cursor := 0
			goruntime.LockOSThread()
			defer goruntime.UnlockOSThread()
			b.ResetTimer()
			cpu0 := threadCPU()
			for range b.N {
				cursor = r.monitorRound(watches, &look, cursor, time.Now(), false)
			}
			b.ReportMetric(float64(threadCPU()-cpu0)/float64(b.N), "cpu-ns/round")
		})
	}
}

// threadCPU is the calling thread's CPU time.
func threadCPU() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		panic(err)
	}
	return time.Duration(ts.Nano())
}
