package runtime

import (
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/spindle-go/spindle/internal/testutil"
)

// parallelSum adds lo..hi-1 with a join at every split, spinning a
// little at each leaf so that thieves find join halves to take.
func parallelSum(lo, hi int) int64 {
	if hi-lo <= 4 {
		var s int64
		for i := lo; i < hi; i++ {
			for range 50 {
				s += int64(i) & 1
			}
			s += int64(i) - 50*(int64(i)&1)
		}
		return s
	}
	mid := (lo + hi) / 2
	var a, b int64
	join(func() { a = parallelSum(lo, mid) }, func() { b = parallelSum(mid, hi) })
	return a + b
}

// Rayon issue #854: a scope spawns many tasks, each a parallel loop of
// joins. A worker whose join half was stolen helps while it waits, and
// what it finds is often another spawned task, which forks, has a half
// stolen, waits and helps in turn: without a bound, unrelated tasks pile
// up on one stack. Waits for stolen join halves stop helping at a fixed
// depth (runtime.maxHelpDepth, 64), which Stats reports.
func TestHelpingWhileWaitingIsBounded(t *testing.T) {
	tasks, n := 3000, 4096 // without the bound: 100-250 deep at 8 workers
	if testutil.RaceEnabled {
		tasks = 600
	}
	want := int64(n * (n - 1) / 2)
	for _, workers := range []int{2, 8} {
		p := newRegistry(t, Config{Workers: workers})
		watchdog(t, func() {
			var sum atomic.Int64
			p.Scope("test scope", func(s *Scope) {
				for range tasks {
					s.Spawn(func(*Scope) { sum.Add(parallelSum(0, n)) })
				}
			})
			require.Equal(t, int64(tasks)*want, sum.Load(), "workers=%d", workers)
		})
		depth := p.Counts().MaxHelpDepth
		t.Logf("workers=%d: deepest help nesting %d", workers, depth)
		assert.LessOrEqual(t, depth, 64, "workers=%d: help nesting beyond the bound", workers)
	}
}
