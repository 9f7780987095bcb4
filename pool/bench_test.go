package pool_test

import (
	"flag"
	"fmt"
	goruntime "runtime"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/spindle-go/spindle/pool"
)

// unlockedWorkers makes BenchmarkRunRoundTrip and BenchmarkSpawnStart use
// workers that are not locked to their threads (pool.WithLockedThreads).
var unlockedWorkers = flag.Bool("unlocked", false, "latency benchmarks: workers not locked to their threads (pool.WithLockedThreads(false))")

func serialFib(n int) int {
	if n < 2 {
		return n
	}
	return serialFib(n-1) + serialFib(n-2)
}

// BenchmarkFibJoin is fib(32) with a pool.Join at every level, against
// serial fib measured in the same run. x-serial is the ratio of the two.
func BenchmarkFibJoin(b *testing.B) {
	const n = 32
	start := time.Now()
	for range 3 {
		serialFib(n)
	}
	serial := time.Since(start) / 3
	b.Run("serial", func(b *testing.B) {
		for b.Loop() {
			serialFib(n)
		}
	})
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			p, err := pool.New(pool.WithWorkers(workers))
			if err != nil {
				b.Fatal(err)
			}
			defer p.Close()
			b.ReportAllocs()
			for b.Loop() {
				p.Run(func() { fib(n) })
			}
			b.ReportMetric(float64(b.Elapsed())/float64(b.N)/float64(serial), "x-serial")
		})
	}
}

// BenchmarkRunRoundTrip is Run of a no-op from outside the pool, on a pool
// whose workers are awake (a call right after the previous one) and on a
// pool whose workers have gone to sleep (a pause between calls, not timed).
// It reports the median and p99 latency (ns/op includes the pauses).
// Beside each Run, in the same
// iterations, it times a round trip to a goroutine blocked in a channel
// receive (send, and wait for its reply), the cost of handing work to a
// goroutine, and reports its median and the ratio.
func BenchmarkRunRoundTrip(b *testing.B) {
	for _, tc := range []struct {
		name  string
		pause time.Duration
	}{{"awake", 0}, {"sleeping", 2 * time.Millisecond}} {
		b.Run(tc.name, func(b *testing.B) {
			p, err := pool.New(pool.WithWorkers(2), pool.WithLockedThreads(!*unlockedWorkers))
			if err != nil {
				b.Fatal(err)
			}
			defer p.Close()
			ask, reply := make(chan struct{}), make(chan struct{})
			go func() {
				for range ask {
					reply <- struct{}{}
				}
			}()
			defer close(ask)
			samples := make([]time.Duration, 0, b.N)
			trips := make([]time.Duration, 0, b.N)
			pause := func() {
				if tc.pause > 0 {
					time.Sleep(tc.pause)
				}
			}
			// The timer runs throughout: b.StartTimer and b.StopTimer
			// read the memory statistics, which stops the world and takes
			// the Ps of sleeping workers, so a call right after them
			// would time the workers' return to a P as well.
			// The two take turns at going first after a pause: the first
			// goroutine readied after one pays for waking an idle thread
			// (the scheduler's wakep), whichever it is.
			trip := func() {
				t0 := time.Now()
				ask <- struct{}{}
				<-reply
				trips = append(trips, time.Since(t0))
			}
			run := func() {
				t0 := time.Now()
				p.Run(func() {})
				samples = append(samples, time.Since(t0))
			}
			round := 0
			for b.Loop() {
				kinds := [2]func(){trip, run}
				for k := range kinds {
					pause()
					kinds[(round+k)%2]()
				}
				round++
			}
			runMedian := reportLatency(b, samples)
			tripMedian := median(trips)
			b.ReportMetric(float64(tripMedian.Nanoseconds())/1e3, "chan-median-us")
			b.ReportMetric(float64(runMedian)/float64(max(tripMedian, 1)), "x-chan")
		})
	}
}

// BenchmarkSpawnStart measures how long a task spawned on a sleeping pool
// (2 workers, idle for 2 ms) takes to start running, and, on Linux, in the
// same iterations, the floor: how long a goroutine locked to its thread
// and asleep in the futex system call for 2 ms takes to run once woken
// (futexSleeper.wake), and how long a task handed to that goroutine
// through a queue takes to start (futexSleeper.handoff: the least any pool
// of sleeping threads does). The three alternate, so that all see the same
// machine (a VM's idle vCPUs wake in about 5 or about 30 us, depending on
// how deeply they slept). It reports the medians and the ratios.
func BenchmarkSpawnStart(b *testing.B) {
	p, err := pool.New(pool.WithWorkers(2), pool.WithLockedThreads(!*unlockedWorkers))
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	floor := startFutexSleeper()
	if floor != nil {
		defer floor.close()
	}
	samples := make([]time.Duration, 0, b.N)
	floors := make([]time.Duration, 0, b.N)
	handoffs := make([]time.Duration, 0, b.N)
	started := make(chan time.Duration, 1)
	spawn := func() {
		t0 := time.Now()
		p.Spawn(func() { started <- time.Since(t0) })
		samples = append(samples, <-started)
	}
	kinds := []func(){spawn}
	if floor != nil {
		kinds = append(kinds,
			func() { floors = append(floors, floor.wake()) },
			func() { handoffs = append(handoffs, floor.handoff()) })
	}
	// Where a measurement falls in the round matters on the test VM (the
	// bare wake-up read 5.5-6.4 us second after a spawn and 8.6-9.1 us
	// third), so the kinds take turns at every position.
	// The timer runs throughout (ns/op is a whole round, pauses
	// included): b.StartTimer and b.StopTimer read the memory statistics,
	// which stops the world and takes the Ps of the threads asleep in
	// the futex call, so a spawn right after them would time the
	// worker's return to a P as well (docs/runs/server-history.md).
	round := 0
	for b.Loop() {
		for k := range kinds {
			time.Sleep(2 * time.Millisecond)
			kinds[(round+k)%len(kinds)]()
		}
		round++
	}
	spawnStart := reportLatency(b, samples)
	if floor != nil {
		futex, handoff := median(floors), median(handoffs)
		b.ReportMetric(float64(futex.Nanoseconds())/1e3, "futex-median-us")
		b.ReportMetric(float64(spawnStart)/float64(futex), "x-futex")
		b.ReportMetric(float64(handoff.Nanoseconds())/1e3, "handoff-median-us")
		b.ReportMetric(float64(spawnStart)/float64(handoff), "x-handoff")
	}
}

// reportLatency reports the median and 99th percentile of samples and
// returns the median.
func reportLatency(b *testing.B, samples []time.Duration) time.Duration {
	if len(samples) == 0 {
		return 0
	}
	slices.Sort(samples)
	b.ReportMetric(float64(samples[len(samples)/2].Nanoseconds())/1e3, "median-us")
	b.ReportMetric(float64(samples[len(samples)*99/100].Nanoseconds())/1e3, "p99-us")
	return samples[len(samples)/2]
}

// median returns the median of samples (sorting them), or 0.
func median(samples []time.Duration) time.Duration {
	if len(samples) == 0 {
		return 0
	}
	slices.Sort(samples)
	return samples[len(samples)/2]
}

// BenchmarkWorkerIndex is the cost of finding out which worker runs the
// caller, on a worker and off-pool.
func BenchmarkWorkerIndex(b *testing.B) {
	b.Run("off-pool", func(b *testing.B) {
		for b.Loop() {
			pool.WorkerIndex()
		}
	})
	b.Run("on-worker", func(b *testing.B) {
		p, err := pool.New(pool.WithWorkers(1))
		if err != nil {
			b.Fatal(err)
		}
		defer p.Close()
		p.Run(func() {
			for b.Loop() {
				pool.WorkerIndex()
			}
		})
	})
}

// BenchmarkIdlePoolCPU reports the CPU time a pool of GOMAXPROCS workers
// uses while it has nothing to do, as a percentage of one core, measured
// over 1 s after the workers have had 100 ms to fall asleep (run it at
// -cpu 2,128 for a small pool and a large one).
func BenchmarkIdlePoolCPU(b *testing.B) {
	for b.Loop() {
		p, err := pool.New(pool.WithWorkers(goruntime.GOMAXPROCS(0)))
		if err != nil {
			b.Fatal(err)
		}
		p.Run(func() {}) // wake them once
		time.Sleep(100 * time.Millisecond)
		before := processCPU()
		start := time.Now()
		time.Sleep(time.Second)
		used := processCPU() - before
		b.ReportMetric(100*float64(used)/float64(time.Since(start)), "cpu-%")
		p.Close()
	}
}

// BenchmarkTrace is fib(27) with forkjoin.Call on 2 workers with no trace
// and with a trace that counts events: the trace hooks sit on the steal and
// sleep paths only, so the two should not differ measurably (compare with
// benchstat). It reports events per op for the traced run.
func BenchmarkTrace(b *testing.B) {
	for _, traced := range []bool{false, true} {
		b.Run(fmt.Sprintf("trace=%v", traced), func(b *testing.B) {
			var events atomic.Int64
			opts := []pool.Option{pool.WithWorkers(2)}
			if traced {
				opts = append(opts, pool.WithTrace(func(pool.Event) { events.Add(1) }))
			}
			p, err := pool.New(opts...)
			if err != nil {
				b.Fatal(err)
			}
			defer p.Close()
			for b.Loop() {
				p.Run(func() { fibCall(27) })
			}
			b.ReportMetric(float64(events.Load())/float64(b.N), "events/op")
		})
	}
}

// BenchmarkPreemptHandOff is what a preemption costs a worker (a GC's stop
// or stack scan, sysmon, a GC worker taking the P): a goroutine's
// runtime.Gosched round trip, on a goroutine locked to its thread (as
// workers are by default: the P moves to another thread and back) and on
// an ordinary one (WithLockedThreads(false)), at GOMAXPROCS 2 with nothing
// else to run. It reports the median of b.N round trips.
func BenchmarkPreemptHandOff(b *testing.B) {
	for _, locked := range []bool{true, false} {
		b.Run(fmt.Sprintf("locked=%v", locked), func(b *testing.B) {
			defer goruntime.GOMAXPROCS(goruntime.GOMAXPROCS(2))
			samples := make([]time.Duration, 0, b.N)
			done := make(chan struct{})
			b.ResetTimer()
			go func() {
				defer close(done)
				if locked {
					goruntime.LockOSThread()
					defer goruntime.UnlockOSThread()
				}
				for range b.N {
					t0 := time.Now()
					goruntime.Gosched()
					samples = append(samples, time.Since(t0))
				}
			}()
			<-done
			b.ReportMetric(float64(median(samples).Nanoseconds())/1e3, "median-us")
		})
	}
}
