package pool_test

import (
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/spindle-go/spindle/pool"
)

// Each worker calls the start hook once, on its own goroutine, before it
// runs a task (New returns after them all), and the exit hook once as
// Close ends it; tasks see the state start set up for their worker.
func TestWorkerHooksRunOnEachWorker(t *testing.T) {
	const workers = 3
	var mu sync.Mutex
	var started, exited []int
	ready := make([]bool, 64)
	p, err := pool.New(pool.WithWorkers(workers), pool.WithSpares(0), pool.WithGuests(0),
		pool.WithWorkerHooks(func(i int) {
			mu.Lock()
			defer mu.Unlock()
			assert.Equal(t, i, pool.WorkerIndex(), "start runs on the worker it names")
			started = append(started, i)
			ready[i] = true
		}, func(i int) {
			mu.Lock()
			defer mu.Unlock()
			assert.Equal(t, i, pool.WorkerIndex(), "exit runs on the worker it names")
			exited = append(exited, i)
		}))
	require.NoError(t, err)
	mu.Lock()
	slices.Sort(started)
	assert.Equal(t, []int{0, 1, 2}, started, "New returned before every start hook ran")
	mu.Unlock()
	watchdog(t, func() {
		p.Scope(func(s *pool.Scope) {
			for range 64 {
				s.Spawn(func(*pool.Scope) {
					mu.Lock()
					defer mu.Unlock()
					assert.True(t, ready[pool.WorkerIndex()], "a task ran on a worker before its start hook")
				})
			}
		})
	})
	require.NoError(t, p.Close())
	slices.Sort(exited)
	assert.Equal(t, []int{0, 1, 2}, exited)
}

// A panic in a hook goes to the panic handler and the worker goes on.
func TestAWorkerHooksPanicGoesToThePanicHandler(t *testing.T) {
	got := make(chan any, 4)
	p, err := pool.New(pool.WithWorkers(1), pool.WithPanicHandler(func(v any) { got <- v }),
		pool.WithWorkerHooks(func(int) { panic("start failed") }, nil))
	require.NoError(t, err)
	defer p.Close()
	v := <-got
	pe, ok := v.(*pool.PanicError)
	require.True(t, ok, "%T", v)
	assert.Equal(t, "start failed", pe.Value)
	ran := false
	p.Run(func() { ran = true })
	assert.True(t, ran, "the worker went on after its hook panicked")

}
