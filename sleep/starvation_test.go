package sleep

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkStarvation measures what a sleeping worker does to ordinary
// goroutines. A goroutine blocked in a system call (the futex parker) keeps
// its P until sysmon retakes it; a goroutine blocked on a channel (the
// channel parker) gives its P back at once. Workers are thread-locked and
// each sleeps through the protocol; right before worker 0 blocks (in the
// hasInjected check, the last thing before parking), it either
//
//   - ready: readies a goroutine blocked on a channel (it lands in the run
//     queue of worker 0's own P, as a goroutine it woke would), or
//   - timer: starts a 100µs timer (time.AfterFunc; the timer lives on
//     worker 0's P), or
//   - ready-at-idle: readies the goroutine when it starts looking for work,
//     before the spinning phase of the idle loop,
//
// and the benchmark reports how long that goroutine, or the timer's
// function, took to run: from the readying, or beyond the timer's 100µs.
// procs=1/sleepers=1 and procs=2/sleepers=2 leave no idle P; procs=2/
// sleepers=1 is the control with one.
func BenchmarkStarvation(b *testing.B) {
	configs := []struct{ procs, sleepers int }{{1, 1}, {2, 2}, {2, 1}}
	for _, mode := range []string{"ready", "timer", "ready-at-idle"} {
		for _, c := range configs {
			name := fmt.Sprintf("%s/%s/procs=%d/sleepers=%d", Backend, mode, c.procs, c.sleepers)
			b.Run(name, func(b *testing.B) { starvation(b, mode, c.procs, c.sleepers) })
		}
	}
}

const starvationTimer = 100 * time.Microsecond

func starvation(b *testing.B, mode string, procs, sleepers int) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
	s := New(sleepers)
	latches := make([]Latch, sleepers)
	var stop atomic.Bool
	var armed atomic.Bool
	readied := make(chan int64) // unbuffered: a send readies the receiver
	results := make(chan int64)

	// The goroutine that worker 0 readies.
	go func() {
		for t0 := range readied {
			results <- nowNS() - t0
		}
	}()
	// Handshake: once the receiver answered, it is blocked in its receive
	// again (it sent without yielding the P), ready to be readied.
	readied <- nowNS()
	<-results
	timerFired := func(t0 int64) func() {
		return func() { results <- nowNS() - t0 - int64(starvationTimer) }
	}

	// hook runs in worker 0 right before it blocks (holding its sleep
	// mutex).
	hook := func() bool {
		if mode == "ready-at-idle" || !armed.CompareAndSwap(true, false) {
			return false
		}
		switch mode {
		case "ready":
			// The receiver is waiting (see the handshake below), so
			// this only readies it.
			readied <- nowNS()
		case "timer":
			time.AfterFunc(starvationTimer, timerFired(nowNS()))
		}
		return false
	}

	var wg sync.WaitGroup
	for i := range sleepers {
		wg.Go(func() {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			for !stop.Load() {
				if i == 0 && mode == "ready-at-idle" && armed.CompareAndSwap(true, false) {
					readied <- nowNS()
				}
				st := s.StartLooking(i)
				have := noInjected
				if i == 0 {
					have = hook
				}
				for !latches[i].Probe() {
					if i == 0 && st.rounds == roundsUntilSleeping && armed.Load() {
						// About to try sleeping: with sleepers=2, wait
						// for worker 1 to block first, so that both Ps
						// are held by sleepers when the hook runs.
						for k := 1; k < sleepers; k++ {
							for !s.isBlocked(k) {
								pause(16)
							}
						}
					}
					s.NoWorkFound(&st, &latches[i], have)
				}
				s.WorkFound(have)
				latches[i].Reset()
			}
		})
	}
	wakeAll := func() {
		// Worker 1 first, so that it tends to be asleep before worker 0.
		for i := sleepers - 1; i >= 0; i-- {
			if latches[i].Set() {
				s.WakeWorker(i)
			}
		}
	}

	samples := make([]int64, 0, b.N)
	for b.Loop() {
		armed.Store(true)
		wakeAll()
		samples = append(samples, <-results)
	}
	stop.Store(true)
	wakeAll()
	wg.Wait()
	close(readied)
	reportLatencies(b, samples)
}
