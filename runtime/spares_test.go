package runtime

import (
	"fmt"
	"sync"
	"testing"

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
