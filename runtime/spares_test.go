package runtime

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/spindle-go/spindle/internal/testutil"
)

// TestBlockedTasksGetSparesUnderLoad: two tasks on a pool of two wait
// for a third queued behind them, while the program's goroutines keep
// every P busy. A worker waiting for a P and a worker blocked in a task
// look alike to a thread's CPU clock; their goroutines' states do not,
// so the monitor starts a spare at any load, and the third task runs.
func TestBlockedTasksGetSparesUnderLoad(t *testing.T) {
	if !canSeeGoroutines() {
		t.Skip("goroutine states cannot be read here: no spare starts")
	}
	for _, load := range []int{3, 8} {
		t.Run(fmt.Sprintf("beside %d goroutines", load), func(t *testing.T) {
			r := startSized(t, 2, Config{Workers: 2, Spares: 4})
			defer testutil.ComputeBeside(load)()
			watchdog(t, func() {
				for range 5 {
					ch := make(chan struct{})
					var done sync.WaitGroup
					done.Add(3)
					r.Spawn("test", func() { defer done.Done(); <-ch })
					r.Spawn("test", func() { defer done.Done(); <-ch })
					r.Spawn("test", func() { defer done.Done(); close(ch) })
					done.Wait()
				}
			})
		})
	}
}

// TestTheMonitorGoesQuietWhileBlockedTasksLeaveNothingQueued: while every
// task blocks and nothing is queued, a spare would find nothing to run,
// and the monitor looks only at its quiet tick. At the fast tick it woke
// the process about every millisecond (the netpoller's step), and the
// blocked tasks' own timers waited for those wake-ups (quietTick). The
// count of rounds over the tasks' sleep is what can fail: about one per
// millisecond at the fast tick, a handful at the quiet one.
func TestTheMonitorGoesQuietWhileBlockedTasksLeaveNothingQueued(t *testing.T) {
	if !canSeeGoroutines() {
		t.Skip("goroutine states cannot be read here: the monitor sees no blocked task")
	}
	r := startSized(t, 2, Config{Workers: 2, Spares: 4})
	watchdog(t, func() {
		var done sync.WaitGroup
		done.Add(2)
		started := make(chan struct{}, 2)
		for range 2 {
			r.Spawn("test", func() {
				defer done.Done()
				started <- struct{}{}
				time.Sleep(60 * time.Millisecond)
			})
		}
		<-started
		<-started
		time.Sleep(5 * time.Millisecond) // the monitor has seen them block
		before := r.MonitorRounds()
		done.Wait()
		rounds := r.MonitorRounds() - before
		assert.LessOrEqual(t, rounds, uint32(20), "monitor rounds while two tasks slept about 55 ms with nothing queued")
	})
}
