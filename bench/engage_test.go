package bench

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEngageStylesRunEveryLeafOnce hands n leaves to pools of 1, 2 and 4
// workers in every style and checks that each leaf ran exactly once
// before the call returned.
func TestEngageStylesRunEveryLeafOnce(t *testing.T) {
	for _, workers := range []int{1, 2, 4} {
		p := newPool(t, workers)
		for _, st := range EngageStyles {
			for _, n := range []int{1, 2, 3, workers, 2*workers + 1} {
				ran := make([]atomic.Int32, n)
				st.hand(p, n, func(i int) { ran[i].Add(1) })
				for i := range ran {
					assert.EqualValues(t, 1, ran[i].Load(), "%s, %d workers: leaf %d of %d", st.Name, workers, i, n)
				}
			}
		}
	}
}

// TestEngageSamplesAreOrdered runs Engage in every style with leaves of
// 100 µs and checks what holds whatever the timings: the starts are in
// order and none is negative. No duration is asserted.
func TestEngageSamplesAreOrdered(t *testing.T) {
	p := newPool(t, 2)
	for _, st := range EngageStyles {
		for _, n := range []int{1, 2, 4} {
			s := Engage(p, st, n, 100*time.Microsecond, time.Millisecond, 3)
			require.GreaterOrEqual(t, s.First, time.Duration(0), "%s, %d leaves", st.Name, n)
			assert.LessOrEqual(t, s.First, s.Middle, "%s, %d leaves", st.Name, n)
			assert.LessOrEqual(t, s.Middle, s.Last, "%s, %d leaves", st.Name, n)
		}
	}
}

// TestEngageStyleNames checks that the styles have the names the peers
// command prints, each once.
func TestEngageStyleNames(t *testing.T) {
	var names []string
	for _, st := range EngageStyles {
		names = append(names, st.Name)
	}
	assert.Equal(t, []string{"for", "do", "spawn", "spawnmany", "group"}, names)
}
