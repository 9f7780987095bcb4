package pool_test

// Bad input and misuse: nil functions in forkjoin, odd grains and ranges,
// absurd worker counts, calls on a closed pool, a Scope handle kept after
// its scope returned.

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/spindle-go/spindle/forkjoin"
	"github.com/spindle-go/spindle/pool"
	spruntime "github.com/spindle-go/spindle/runtime"
)

// TestReliabilityForkjoinNilFunctions: a nil function panics at once with
// a message naming the call, before any other check (an empty input, an
// empty range), off-pool with the message itself, on a worker as the
// *PanicError of the enclosing Run.
func TestReliabilityForkjoinNilFunctions(t *testing.T) {
	p := newPool(t, pool.WithWorkers(2))
	id := func() int { return 0 }
	for _, tc := range []struct {
		name string
		call func()
	}{
		{"forkjoin.Call", func() { forkjoin.Call[int, int](nil, 1, 2) }},
		{"forkjoin.Do", func() { forkjoin.Do[int](nil, 1, 2) }},
		{"forkjoin.Join", func() { forkjoin.Join[int, int](nil, id) }},
		{"forkjoin.Join", func() { forkjoin.Join[int, int](id, nil) }},
		{"forkjoin.For", func() { forkjoin.For(0, 100, 1, nil) }},
		{"forkjoin.For", func() { forkjoin.For(5, 1, 1, nil) }}, // empty range
		{"forkjoin.Map", func() { forkjoin.Map[int, int]([]int{1, 2, 3}, nil) }},
		{"forkjoin.Map", func() { forkjoin.Map[int, int](nil, nil) }},
		{"forkjoin.Reduce", func() { forkjoin.Reduce([]int{1, 2, 3}, 0, nil) }},
		{"forkjoin.Reduce", func() { forkjoin.Reduce(nil, 0, nil) }},
		{"forkjoin.SortFunc", func() { forkjoin.SortFunc([]int{3, 1, 2}, nil) }},
		{"forkjoin.SortFunc", func() { forkjoin.SortFunc([]int(nil), nil) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			watchdog(t, func() {
				want := tc.name + ": nil function"
				assert.Equal(t, want, recoverValue(tc.call), "off-pool")
				pe := catchPanicError(t, func() { p.Run(tc.call) })
				assert.Equal(t, want, pe.Value, "on a worker")
			})
		})
	}
}

// forChunks runs forkjoin.For(lo, hi, grain) with a body that records its
// chunks, and returns them sorted.
func forChunks(lo, hi, grain int) [][2]int {
	var mu sync.Mutex
	var chunks [][2]int
	forkjoin.For(lo, hi, grain, func(l, h int) {
		mu.Lock()
		chunks = append(chunks, [2]int{l, h})
		mu.Unlock()
	})
	slices.SortFunc(chunks, func(a, b [2]int) int {
		switch {
		case a[0] < b[0]:
			return -1
		case a[0] > b[0]:
			return 1
		}
		return 0
	})
	return chunks
}

// checkChunks checks that chunks tile [lo, hi) exactly (each index once,
// no empty chunk) and hold at most grain indices when grain > 0. Sizes are
// computed in uint: a range may hold more than MaxInt indices.
func checkChunks(t *testing.T, chunks [][2]int, lo, hi, grain int) {
	t.Helper()
	if lo >= hi {
		assert.Empty(t, chunks, "body called for an empty range")
		return
	}
	require.NotEmpty(t, chunks)
	next := lo
	for _, c := range chunks {
		require.Equal(t, next, c[0], "chunks %v do not tile [%d, %d)", chunks, lo, hi)
		require.Less(t, c[0], c[1], "empty chunk %v", c)
		if grain > 0 {
			assert.LessOrEqual(t, uint(c[1])-uint(c[0]), uint(grain), "chunk %v larger than grain %d", c, grain)
		}
		next = c[1]
	}
	assert.Equal(t, hi, next, "chunks %v do not reach %d", chunks, hi)
}

// TestReliabilityForGrainsAndRanges: zero, negative and huge grains; empty
// and reversed ranges; ranges at both ends of int and spanning nearly all
// of it (those are recorded as chunks, never iterated).
func TestReliabilityForGrainsAndRanges(t *testing.T) {
	p := newPool(t, pool.WithWorkers(2))
	const maxI, minI = math.MaxInt, math.MinInt
	for _, tc := range []struct{ lo, hi, grain int }{
		{0, 1000, 0},
		{0, 1000, -1},
		{0, 1000, minI},
		{0, 1000, 1},
		{0, 1000, 7},
		{0, 1000, maxI},
		{-500, 500, 3},
		{0, 1, 0},
		{5, 5, 1},       // empty
		{10, 3, 1},      // lo > hi
		{10, 3, -1},     // lo > hi, negative grain
		{maxI, minI, 1}, // lo > hi, extreme
		{maxI - 100, maxI, 9},
		{minI, minI + 100, 9},
		{maxI - 1, maxI, 0},
		{minI, maxI, maxI},     // 2^64-1 indices: three chunks
		{minI, maxI, maxI / 4}, // a dozen chunks
		{-maxI, maxI, 1 << 61},
	} {
		t.Run(fmt.Sprintf("For(%d,%d,%d)", tc.lo, tc.hi, tc.grain), func(t *testing.T) {
			watchdog(t, func() {
				checkChunks(t, forChunks(tc.lo, tc.hi, tc.grain), tc.lo, tc.hi, tc.grain)
				var onWorker [][2]int
				p.Run(func() { onWorker = forChunks(tc.lo, tc.hi, tc.grain) })
				checkChunks(t, onWorker, tc.lo, tc.hi, tc.grain)
			})
		})
	}
}

// TestReliabilityEmptyInputs: empty and tiny inputs neither call the
// function nor touch a pool.
func TestReliabilityEmptyInputs(t *testing.T) {
	watchdog(t, func() {
		calls := 0
		out := forkjoin.Map(nil, func(int) int { calls++; return 0 })
		assert.NotNil(t, out)
		assert.Empty(t, out)
		assert.Equal(t, 7, forkjoin.Reduce(nil, 7, func(a, b int) int { calls++; return a + b }))
		assert.Equal(t, 5, forkjoin.Reduce([]int{5}, 0, func(a, b int) int { calls++; return a + b }))
		assert.Zero(t, calls)
		var none []int
		forkjoin.Sort(none)
		assert.Nil(t, none)
		one := []int{1}
		forkjoin.Sort(one)
		forkjoin.SortFunc(one, func(a, b int) int { calls++; return a - b })
		assert.Equal(t, []int{1}, one)
		assert.Zero(t, calls)
	})
}

func TestReliabilityAbsurdWorkerCounts(t *testing.T) {
	for _, n := range []int{math.MaxInt, math.MinInt, math.MaxInt32 + 1, spruntime.MaxWorkers + 1, -1} {
		p, err := pool.New(pool.WithWorkers(n))
		assert.Nil(t, p, "WithWorkers(%d)", n)
		if assert.Error(t, err, "WithWorkers(%d)", n) {
			assert.Contains(t, err.Error(), fmt.Sprintf("pool.WithWorkers(%d)", n))
		}
	}
	// Far more workers than CPUs is allowed and works.
	p := newPool(t, pool.WithWorkers(64))
	watchdog(t, func() {
		assert.Equal(t, 64, p.Workers())
		var got int
		p.Run(func() { got = fib(18) })
		assert.Equal(t, 2584, got)
		var n atomic.Int64
		p.Scope(func(s *pool.Scope) {
			for range 256 {
				s.Spawn(func(*pool.Scope) { n.Add(1) })
			}
		})
		assert.EqualValues(t, 256, n.Load())
	})
}

// TestReliabilityUseAfterClose complements TestClosedPoolPanicsWithErrClosed:
// Close is idempotent when called from many goroutines at once, Stats and
// Workers keep working, a nil function is reported as such even on a
// closed pool, and a refused call from a worker of another pool comes back
// as that pool's *PanicError, which still wraps ErrClosed.
func TestReliabilityUseAfterClose(t *testing.T) {
	watchdog(t, func() {
		p, err := pool.New(pool.WithWorkers(2))
		require.NoError(t, err)
		p.Run(func() { fib(15) })
		var wg sync.WaitGroup
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				assert.NoError(t, p.Close())
			}()
		}
		wg.Wait()
		require.NoError(t, p.Close())

		assert.Equal(t, 2, p.Workers())
		s1 := p.Stats()
		assert.Equal(t, 2, s1.Workers)
		assert.Equal(t, uint64(1), s1.Injected+s1.GuestCalls)
		assert.Equal(t, s1, p.Stats(), "counters of a closed pool do not move")

		assert.Equal(t, "pool.Pool.Run: nil function", recoverValue(func() { p.Run(nil) }))
		assert.Equal(t, "pool.Pool.Spawn: nil function", recoverValue(func() { p.Spawn(nil) }))

		other := newPool(t, pool.WithWorkers(1))
		for name, call := range map[string]func(){
			"pool.Pool.Run":   func() { p.Run(func() {}) },
			"pool.Pool.Join":  func() { p.Join(func() {}, func() {}) },
			"pool.Pool.Scope": func() { p.Scope(func(*pool.Scope) {}) },
			"pool.Pool.Spawn": func() { p.Spawn(func() {}) },
		} {
			pe := catchPanicError(t, func() { other.Run(call) })
			assert.ErrorIs(t, pe, pool.ErrClosed, name)
			assert.Contains(t, pe.Error(), name)
		}
		assert.Equal(t, s1, p.Stats(), "refused calls are not counted")
	})
}

// TestReliabilityTasksUsePoolWhileCloseDrains: Close waits for the tasks
// in progress, and those may still use their own pool (join, run, scope,
// spawn detached tasks, which Close then waits for too).
func TestReliabilityTasksUsePoolWhileCloseDrains(t *testing.T) {
	watchdog(t, func() {
		p, err := pool.New(pool.WithWorkers(2))
		require.NoError(t, err)
		closing := make(chan struct{})
		var n atomic.Int64
		p.Spawn(func() {
			<-closing
			for range 50 { // outlast Close's start
				time.Sleep(20 * time.Microsecond)
				p.Join(func() { n.Add(1) }, func() { n.Add(1) })
				p.Run(func() { n.Add(1) })
				p.Scope(func(s *pool.Scope) { s.Spawn(func(*pool.Scope) { n.Add(1) }) })
				p.Spawn(func() { p.Spawn(func() { n.Add(1) }) })
			}
		})
		close(closing)
		require.NoError(t, p.Close())
		assert.EqualValues(t, 50*5, n.Load(), "Close returned before the tasks it drains")
		assert.Panics(t, func() { p.Run(func() {}) })
	})
}

// TestReliabilityScopeHandleAfterReturn: a *Scope kept after its Scope call
// returned is a programming error. Spawn on it panics (runtime/scope.go:
// nobody waits for the scope any more, so the task would run unobserved,
// its panic lost, or never run at all on a closed pool), whether called
// from an ordinary goroutine, from a worker of the pool or after Close;
// the task never runs and the pool stays usable.
func TestReliabilityScopeHandleAfterReturn(t *testing.T) {
	p, err := pool.New(pool.WithWorkers(2))
	require.NoError(t, err)
	defer p.Close()
	watchdog(t, func() {
		var kept *pool.Scope
		var ran atomic.Int64
		p.Scope(func(s *pool.Scope) {
			kept = s
			s.Spawn(func(*pool.Scope) { ran.Add(1) })
		})
		require.EqualValues(t, 1, ran.Load())
		late := func(*pool.Scope) { ran.Add(1) }
		checkLate := func(v any, where string) {
			t.Helper()
			if pe, ok := v.(*pool.PanicError); ok {
				v = pe.Value
			}
			msg, ok := v.(string)
			require.True(t, ok, "%s: late Spawn panicked with %T %v, want a message", where, v, v)
			assert.Contains(t, msg, "Scope.Spawn", where)
			assert.Contains(t, msg, "finished", where)
		}
		checkLate(recoverValue(func() { kept.Spawn(late) }), "from a goroutine")
		checkLate(recoverValue(func() { p.Run(func() { kept.Spawn(late) }) }), "from a worker")
		var got int
		p.Run(func() { got = fib(10) })
		assert.Equal(t, 55, got, "pool usable after a late Spawn")
		require.NoError(t, p.Close())
		checkLate(recoverValue(func() { kept.Spawn(late) }), "after Close")
		assert.EqualValues(t, 1, ran.Load(), "a late task ran")
	})
}

// TestReliabilityPanicValues: unusual panic values (nil error wrapper,
// runtime errors, a *PanicError from another pool) come out of Join,
// Scope and Run as a *PanicError whose Value is what was panicked, and
// errors.Is/As see through it.
func TestReliabilityPanicValues(t *testing.T) {
	p := newPool(t, pool.WithWorkers(2))
	other := newPool(t, pool.WithWorkers(1))
	watchdog(t, func() {
		pe := catchPanicError(t, func() {
			p.Join(func() {}, func() {
				var m map[string]int
				//lint:ignore SA5000 the runtime error is the point
				m["x"] = 1 // runtime error: assignment to entry in nil map
			})
		})
		var re interface{ RuntimeError() }
		assert.True(t, errors.As(pe, &re), "runtime error visible through *PanicError: %v", pe.Value)

		wrapped := fmt.Errorf("wrapped: %w", errBoom)
		pe = catchPanicError(t, func() { p.Scope(func(s *pool.Scope) { s.Spawn(func(*pool.Scope) { panic(wrapped) }) }) })
		assert.ErrorIs(t, pe, errBoom)

		// A panic that crosses two pools keeps its original value and stack.
		pe = catchPanicError(t, func() { p.Run(func() { other.Run(panicsWith("deep")) }) })
		assert.Equal(t, "deep", pe.Value)
		assert.Contains(t, string(pe.Stack), "panicsWith")
	})
}
