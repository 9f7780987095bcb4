package sleep

import (
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Benchmarks of the protocol's costs. Run them with
//
//	go test -run '^$' -bench . -benchtime 2000x ./sleep/
//	go test -run '^$' -bench . -benchtime 2000x -tags spindle_portable ./sleep/
//
// BenchmarkIdleCPU takes one second per iteration; give it -benchtime 1x
// (or 3x) separately. sleep/NOTES.md quotes the results.

// epoch is the zero of nowNS, shared by the goroutines that time a wake-up.
var epoch = time.Now()

// nowNS is monotonic nanoseconds since epoch.
func nowNS() int64 { return int64(time.Since(epoch)) }

// reportLatencies reports the median and 99th percentile of samples (in
// nanoseconds) in microseconds.
func reportLatencies(b *testing.B, samples []int64) {
	if len(samples) == 0 {
		return
	}
	slices.Sort(samples)
	p := func(q float64) float64 {
		i := min(int(q*float64(len(samples))), len(samples)-1)
		return float64(samples[i]) / 1e3
	}
	b.ReportMetric(p(0.5), "p50-µs")
	b.ReportMetric(p(0.99), "p99-µs")
}

// BenchmarkPostNoSleepers is the join hot path: announcing a pushed job
// while no worker is sleepy or sleeping, which must cost one atomic load.
func BenchmarkPostNoSleepers(b *testing.B) {
	b.Run("serial", func(b *testing.B) {
		s := New(4)
		for b.Loop() {
			s.NewInternalJobs(1, true)
		}
	})
	b.Run("idle-awake-workers", func(b *testing.B) {
		// Some workers are looking for work but none sleeps: still a load.
		s := New(4)
		s.StartLooking(1)
		s.StartLooking(2)
		for b.Loop() {
			s.NewInternalJobs(1, false)
		}
	})
	b.Run("parallel", func(b *testing.B) {
		// Every worker posting at once: the counters word stays shared
		// in all caches, as long as nobody writes it.
		s := New(4)
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				s.NewInternalJobs(1, true)
			}
		})
	})
}

// wakeBench is one worker, locked to its thread, that waits in the idle
// loop for either a job (a timestamp in job) or its latch, and reports how
// long after the post it saw it.
type wakeBench struct {
	s     *Sleep
	latch Latch
	job   atomic.Int64 // post time (nowNS), 0 when none
	setAt atomic.Int64 // latch set time (nowNS)
	stop  atomic.Bool
	tid   chan int
	seen  chan int64 // latency of each observed post
	// With busy set, the worker reports latencies in last instead, and
	// the poster spins on it: a poster that stays busy after posting,
	// like a worker that forks and goes on with the other half.
	busy bool
	last atomic.Int64
}

func newWakeBench(busy bool) *wakeBench {
	return &wakeBench{s: New(1), tid: make(chan int, 1), seen: make(chan int64), busy: busy}
}

func (w *wakeBench) report(lat int64) {
	if w.busy {
		w.last.Store(lat)
	} else {
		w.seen <- lat
	}
}

// result waits for the worker's report of a post.
func (w *wakeBench) result() int64 {
	if !w.busy {
		return <-w.seen
	}
	for {
		if lat := w.last.Swap(0); lat != 0 {
			return lat
		}
	}
}

func (w *wakeBench) run() {
	defer close(w.seen)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	w.tid <- gettid()
	for !w.stop.Load() {
		st := w.s.StartLooking(0)
		for {
			if t := w.job.Swap(0); t != 0 {
				w.s.WorkFound(nothingQueued)
				w.report(nowNS() - t)
				break
			}
			if w.latch.Probe() {
				w.s.WorkFound(nothingQueued)
				lat := nowNS() - w.setAt.Load()
				w.latch.Reset()
				w.report(lat)
				break
			}
			w.s.NoWorkFound(&st, &w.latch, noInjected)
		}
	}
}

// waitAsleep waits until worker 0 is blocked and its thread is in the
// kernel, so that what is measured is a wake-up from deep sleep.
func (w *wakeBench) waitAsleep(tid int) {
	waitFor(func() bool { return w.s.isBlocked(0) && threadAsleep(tid) })
}

func (w *wakeBench) close() {
	w.stop.Store(true)
	w.setAt.Store(nowNS())
	if w.latch.Set() {
		w.s.WakeWorker(0)
	}
	for range w.seen {
		// The worker may report the latch before it sees stop.
	}
}

// BenchmarkWakeLatency measures how long a worker asleep in the protocol
// takes to see a job posted (NewInternalJobs) or its latch set (Set, then
// WakeWorker): the time from the post to the worker running again. The
// poster either blocks right after posting (waiting on a channel for the
// worker's report, its P free) or stays busy (busy-poster: it spins on an
// atomic, keeping its P), as a worker that forks and goes on working does.
func BenchmarkWakeLatency(b *testing.B) {
	posts := []struct {
		name string
		post func(w *wakeBench)
	}{
		{"job", func(w *wakeBench) {
			w.job.Store(nowNS())
			w.s.NewInternalJobs(1, true)
		}},
		{"latch", func(w *wakeBench) {
			w.setAt.Store(nowNS())
			if w.latch.Set() {
				w.s.WakeWorker(0)
			}
		}},
	}
	for _, busy := range []bool{false, true} {
		for _, p := range posts {
			name := fmt.Sprintf("%s/%s", Backend, p.name)
			if busy {
				name += "/busy-poster"
			}
			b.Run(name, func(b *testing.B) {
				w := newWakeBench(busy)
				go w.run()
				tid := <-w.tid
				samples := make([]int64, 0, b.N)
				for b.Loop() {
					w.waitAsleep(tid)
					p.post(w)
					samples = append(samples, w.result())
				}
				w.close()
				reportLatencies(b, samples)
			})
		}
	}
}

// chanParker is the channel parker of park_portable.go, built in every
// configuration so that BenchmarkParker can compare it with the compiled
// parker (the futex one on Linux) in one run.
type chanParker struct{ tokens chan struct{} }

func (p *chanParker) park()   { <-p.tokens }
func (p *chanParker) unpark() { p.tokens <- struct{}{} }

// BenchmarkParker measures the bare parkers: a thread-locked goroutine
// parks; once its thread sleeps in the kernel, the benchmark unparks it and
// the sleeper reports how long after the unpark it ran. The asleep-2ms
// variants unpark it only after it has slept 2 ms while the benchmark's
// goroutine slept too (as pool's BenchmarkSpawnStart does before each
// spawn): the floor for waking a pool that has gone idle, where the CPUs
// themselves may have gone idle.
func BenchmarkParker(b *testing.B) {
	var fp parker
	fp.init(new(atomic.Uint32))
	cp := &chanParker{tokens: make(chan struct{}, 1)}
	parkers := []struct {
		name         string
		park, unpark func()
	}{
		{Backend, fp.park, fp.unpark},
		{"channel-direct", cp.park, cp.unpark},
	}
	if Backend == "channel" {
		parkers = parkers[:1]
	}
	for _, p := range parkers {
		for _, asleep := range []time.Duration{0, 2 * time.Millisecond} {
			name := p.name
			if asleep > 0 {
				name += "/asleep-2ms"
			}
			b.Run(name, func(b *testing.B) {
				var at atomic.Int64
				var stop atomic.Bool
				tids := make(chan int)
				seen := make(chan int64)
				go func() {
					runtime.LockOSThread()
					defer runtime.UnlockOSThread()
					tids <- gettid()
					for {
						p.park()
						if stop.Load() {
							close(seen)
							return
						}
						seen <- nowNS() - at.Load()
					}
				}()
				tid := <-tids
				samples := make([]int64, 0, b.N)
				for b.Loop() {
					// The sleeper is parked once its thread sleeps: it
					// has nothing else to wait for.
					waitFor(func() bool { return threadAsleep(tid) })
					if asleep > 0 {
						b.StopTimer()
						time.Sleep(asleep)
						b.StartTimer()
					}
					at.Store(nowNS())
					p.unpark()
					samples = append(samples, <-seen)
				}
				stop.Store(true)
				p.unpark()
				<-seen
				reportLatencies(b, samples)
			})
		}
	}
}

// BenchmarkIdleCPU measures what idle workers cost: N thread-locked workers
// run the idle loop (spin, yield, sleep) for one second per iteration,
// optionally woken by a job every tick; it reports the process's CPU time
// per second of wall time and per worker. workers=0 is the baseline (the
// benchmark's own timer and the runtime's background threads).
func BenchmarkIdleCPU(b *testing.B) {
	for _, tick := range []time.Duration{0, 10 * time.Millisecond, time.Millisecond} {
		for _, n := range []int{0, 1, 2} {
			name := fmt.Sprintf("%s/workers=%d/tick=%v", Backend, n, tick)
			b.Run(name, func(b *testing.B) { idleCPU(b, n, tick) })
		}
	}
}

func idleCPU(b *testing.B, n int, tick time.Duration) {
	s := New(max(n, 1))
	stop := make([]Latch, n)
	var jobs atomic.Int64
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			st := s.StartLooking(i)
			for !stop[i].Probe() {
				if j := jobs.Load(); j > 0 && jobs.CompareAndSwap(j, j-1) {
					s.WorkFound(nothingQueued)
					st = s.StartLooking(i)
					continue
				}
				s.NoWorkFound(&st, &stop[i], noInjected)
			}
			s.WorkFound(nothingQueued)
		})
	}
	var total time.Duration
	var wall time.Duration
	for b.Loop() {
		start, cpu0 := time.Now(), cpuTime(b)
		if tick == 0 {
			time.Sleep(time.Second)
		} else {
			t := time.NewTicker(tick)
			for time.Since(start) < time.Second {
				<-t.C
				for k := range n {
					jobs.Add(1)
					s.NewInternalJobs(1, k == 0)
				}
			}
			t.Stop()
		}
		total += cpuTime(b) - cpu0
		wall += time.Since(start)
	}
	for i := range stop {
		if stop[i].Set() {
			s.WakeWorker(i)
		}
	}
	wg.Wait()
	cpuMsPerS := float64(total) / float64(time.Millisecond) / wall.Seconds()
	b.ReportMetric(cpuMsPerS, "cpu-ms/s")
	if n > 0 {
		b.ReportMetric(cpuMsPerS/float64(n), "cpu-ms/s/worker")
	}
	b.ReportMetric(float64(s.Stats().Sleeps)/wall.Seconds(), "sleeps/s")
}

// BenchmarkIdleEpisode measures what the idle loop's tunables trade: a
// thread-locked worker finishes a job and starts looking for work, and the
// next job is posted delay later. Posts that arrive while it still spins
// are seen within a round; later ones pay a full wake-up. It reports the
// latency from post to pick-up (p50, p99) and, when the worker got to
// sleep, the time from starting to look until blocking (spin-µs: the CPU
// an idle episode burns before it sleeps).
func BenchmarkIdleEpisode(b *testing.B) {
	for _, delay := range []time.Duration{
		5 * time.Microsecond, 20 * time.Microsecond, 50 * time.Microsecond,
		200 * time.Microsecond, time.Millisecond,
	} {
		b.Run(fmt.Sprintf("%s/delay=%v", Backend, delay), func(b *testing.B) { idleEpisode(b, delay) })
	}
}

func idleEpisode(b *testing.B, delay time.Duration) {
	s := New(1)
	var stop Latch
	// The benchmark goroutine spins on atomics rather than blocking on a
	// channel: a goroutine the worker readied would sit in the worker's
	// P's run queue while the worker spins (see BenchmarkStarvation), and
	// be late to post.
	var job, idleAt, seen atomic.Int64
	var toPark []int64 // written by the worker, read after it stopped
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		var start int64
		parked := false
		hook := func() bool {
			if !parked {
				parked = true
				toPark = append(toPark, nowNS()-start)
			}
			return false
		}
		for {
			start, parked = nowNS(), false
			idleAt.Store(start)
			st := s.StartLooking(0)
			for {
				if t := job.Swap(0); t != 0 {
					s.WorkFound(nothingQueued)
					seen.Store(nowNS() - t)
					break
				}
				if stop.Probe() {
					s.WorkFound(nothingQueued)
					return
				}
				s.NoWorkFound(&st, &stop, hook)
			}
		}
	}()
	samples := make([]int64, 0, b.N)
	for b.Loop() {
		// Wait for the worker to start looking, then for delay.
		at := idleAt.Load()
		for at == 0 {
			at = idleAt.Load()
		}
		for nowNS() < at+int64(delay) {
		}
		idleAt.Store(0)
		job.Store(nowNS())
		s.NewInternalJobs(1, true)
		var lat int64
		for lat == 0 {
			lat = seen.Swap(0)
		}
		samples = append(samples, lat)
	}
	if stop.Set() {
		s.WakeWorker(0)
	}
	<-done
	reportLatencies(b, samples)
	if len(toPark) > 0 {
		slices.Sort(toPark)
		b.ReportMetric(float64(toPark[len(toPark)/2])/1e3, "spin-µs")
		b.ReportMetric(float64(len(toPark))/float64(len(samples)), "sleeps/op")
	}
}

// BenchmarkIdleRound is the cost of one round of each phase of the idle
// loop (without the search for work): a spin round (pause), and a yield
// round (sched_yield, with or without another runnable thread on the CPU).
func BenchmarkIdleRound(b *testing.B) {
	b.Run("pause", func(b *testing.B) {
		for b.Loop() {
			pause(pauseIterations)
		}
	})
	b.Run("yield", func(b *testing.B) {
		for b.Loop() {
			osYield()
		}
	})
}
