package forkjoin_test

import (
	"context"
	"fmt"
	"math"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/spindle-go/spindle/forkjoin"
)

// Every loop that takes a grain reads grain <= 0 the same way: pick one
// (about 8 chunks per worker). None panics on it, and each covers its
// range exactly once.
func TestLoopsReadGrainsBelowOneAsChoose(t *testing.T) {
	const lo, hi = -7, 50_000
	loops := []struct {
		name string
		run  func(grain int, visit func(l, h int))
	}{
		{"For", func(grain int, visit func(l, h int)) { forkjoin.For(lo, hi, grain, visit) }},
		{"ForErr", func(grain int, visit func(l, h int)) {
			err := forkjoin.ForErr(context.Background(), lo, hi, grain, func(_ context.Context, l, h int) error {
				visit(l, h)
				return nil
			})
			assert.NoError(t, err) // no require: this may run on a worker
		}},
		{"Fold", func(grain int, visit func(l, h int)) {
			pieces := forkjoin.Fold(lo, hi, grain,
				func() int { return 0 },
				func(acc, l, h int) int { visit(l, h); return acc + 1 },
				func(a, b int) int { return a + b })
			assert.Greater(t, pieces, 1, "an automatic grain cuts a large range")
		}},
	}
	for _, pl := range places {
		for _, loop := range loops {
			for _, grain := range []int{0, -1, math.MinInt} {
				t.Run(fmt.Sprintf("%s/%s/grain %d", pl.name, loop.name, grain), func(t *testing.T) {
					seen := make([]atomic.Int32, hi-lo)
					runAt(t, pl, func() {
						loop.run(grain, func(l, h int) {
							for i := l; i < h; i++ {
								seen[i-lo].Add(1)
							}
						})
					})
					for i := range seen {
						if seen[i].Load() != 1 {
							t.Fatalf("index %d visited %d times", i+lo, seen[i].Load())
						}
					}
				})
			}
		}
	}
}
