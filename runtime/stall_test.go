package runtime

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// catchStallReports makes the monitor's stall reports go to the channel
// it returns, for the test's length.
func catchStallReports(t *testing.T) <-chan string {
	reports := make(chan string, 16)
	prev := reportStall
	reportStall = func(msg string) { reports <- msg }
	t.Cleanup(func() { reportStall = prev })
	return reports
}

// TestStallIsReportedOnce: when every worker and spare is blocked in a
// task while tasks are queued, the monitor says so once, naming the pool
// and Isolate; the pool goes on once the tasks resume.
func TestStallIsReportedOnce(t *testing.T) {
	if !canSeeGoroutines() {
		t.Skip("goroutine states cannot be read here: no stall is reported")
	}
	reports := catchStallReports(t)
	r := newRegistry(t, Config{Workers: 1, Spares: 1, Name: "stalled"})
	release := make(chan struct{})
	watchdog(t, func() {
		done := make(chan struct{}, 3)
		for range 3 { // the worker's, the spare's, and one queued
			r.Spawn("test", func() { <-release; done <- struct{}{} })
		}
		msg := <-reports
		assert.Contains(t, msg, `pool "stalled"`)
		assert.Contains(t, msg, "all 1 of its workers")
		assert.Contains(t, msg, "1 spares active")
		assert.Contains(t, msg, "pool.Isolate")
		close(release)
		for range 3 {
			<-done
		}
	})
	assert.Empty(t, reports, "reported more than once")
}

// abortableLock is a mutex whose waiters all go through once it is
// aborted: the test's way out of a deadlock it built on purpose.
type abortableLock struct {
	sem, abort chan struct{}
	once       sync.Once
}

func newAbortableLock() *abortableLock {
	return &abortableLock{sem: make(chan struct{}, 1), abort: make(chan struct{})}
}

func (l *abortableLock) lock() {
	select {
	case l.sem <- struct{}{}:
	case <-l.abort:
	}
}

func (l *abortableLock) unlock() {
	select {
	case <-l.sem:
	default: // aborted: the holder may find it free
	}
}

func (l *abortableLock) release() { l.once.Do(func() { close(l.abort) }) }

// TestALockHeldAcrossAForkIsReported runs the program behind the stall
// report: 300 tasks of one bulk spawn, each holding one lock across a
// join, called from a goroutine. A worker waiting for its stolen half
// runs a queued task that waits for the lock its first task holds, and
// the pool deadlocks (the spares that start take tasks that wait for
// the lock too). In every configuration the monitor says so within 5 s,
// or the program finishes (it may, when the halves are not stolen).
func TestALockHeldAcrossAForkIsReported(t *testing.T) {
	if !canSeeGoroutines() {
		t.Skip("goroutine states cannot be read here: no stall is reported")
	}
	for _, cfg := range []Config{
		{Workers: 2, Spares: 256, Guests: 64},
		{Workers: 2, Spares: 256},
		{Workers: 2, Spares: 4, Guests: 64},
		{Workers: 2, Guests: 64},
		{Workers: 2, Spares: 256, Guests: 64, Unlocked: true},
	} {
		t.Run(fmt.Sprintf("spares=%d,guests=%d,unlocked=%v", cfg.Spares, cfg.Guests, cfg.Unlocked), func(t *testing.T) {
			reports := catchStallReports(t)
			r := newRegistry(t, cfg)
			mu := newAbortableLock()
			watchdog(t, func() {
				done := make(chan struct{})
				go func() {
					defer close(done)
					r.Scope("test", func(s *Scope) {
						s.SpawnMany(300, func(*Scope, int) {
							mu.lock()
							join(func() { spinFor(20 * time.Microsecond) }, func() { spinFor(20 * time.Microsecond) })
							mu.unlock()
						})
					})
				}()
				select {
				case <-done:
					t.Log("the program finished")
				case msg := <-reports:
					assert.Contains(t, msg, "blocked in tasks")
					assert.Contains(t, msg, "pool.Isolate")
					mu.release()
					<-done
				case <-time.After(5 * time.Second):
					mu.release()
					<-done
					t.Fatal("stuck for 5 s, and no stall was reported")
				}
			})
		})
	}
}

// TestNoStallReportWithNothingPending: workers and spares blocked for long
// in the tasks they were given, with no task pending (six long reads on
// two workers and four spares, nothing queued), is no stall.
func TestNoStallReportWithNothingPending(t *testing.T) {
	if !canSeeGoroutines() {
		t.Skip("goroutine states cannot be read here: no stall is reported")
	}
	reports := catchStallReports(t)
	r := newRegistry(t, Config{Workers: 2, Spares: 4})
	watchdog(t, func() {
		release := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(6)
		for range 6 {
			r.Spawn("test", func() { defer wg.Done(); <-release })
		}
		select {
		case msg := <-reports:
			t.Errorf("reported: %s", msg)
		case <-time.After(stallReportAfter + time.Second):
		}
		close(release)
		wg.Wait()
	})
}
