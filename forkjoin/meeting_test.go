package forkjoin_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/spindle-go/spindle/forkjoin"
	"github.com/spindle-go/spindle/internal/testutil"
	"github.com/spindle-go/spindle/pool"
)

// TestPiecesThatWaitForEachOtherAllStart runs P pieces that each wait
// until all P have started (testutil.Meeting) through each parallel loop
// and the Do tree, on a sleeping pool of P workers: all must run at once.
// Every loop is given exactly P chunks (grain 1 over P indices, or the
// automatic grain, which makes P chunks of P elements or fewer; Filter
// rounds its grain up to 64, so it gets 64 elements per piece). GOMAXPROCS
// is P+1 so that the P worker threads and the caller all have a P.
func TestPiecesThatWaitForEachOtherAllStart(t *testing.T) {
	ctx := context.Background()
	styles := []struct {
		name string
		run  func(n int, piece func())
	}{
		{"For", func(n int, piece func()) {
			forkjoin.For(0, n, 1, func(int, int) { piece() })
		}},
		{"Map", func(n int, piece func()) {
			forkjoin.Map(make([]int, n), func(int) int { piece(); return 0 })
		}},
		{"ForErr", func(n int, piece func()) {
			assert.NoError(t, forkjoin.ForErr(ctx, 0, n, 1, func(context.Context, int, int) error { piece(); return nil }))
		}},
		{"MapErr", func(n int, piece func()) {
			_, err := forkjoin.MapErr(ctx, make([]int, n), func(context.Context, int) (int, error) { piece(); return 0, nil })
			assert.NoError(t, err)
		}},
		{"Filter", func(n int, piece func()) {
			s := make([]int, 64*n)
			for i := range s {
				s[i] = i
			}
			forkjoin.Filter(s, func(x int) bool {
				if x%64 == 0 {
					piece()
				}
				return true
			})
		}},
		{"Do tree", func(n int, piece func()) {
			var tree func(r [2]int)
			tree = func(r [2]int) {
				if r[1]-r[0] == 1 {
					piece()
					return
				}
				mid := (r[0] + r[1]) / 2
				forkjoin.Do(tree, [2]int{r[0], mid}, [2]int{mid, r[1]})
			}
			tree([2]int{0, n})
		}},
	}
	for _, workers := range []int{4, 8} {
		for _, st := range styles {
			t.Run(fmt.Sprintf("%s/P=%d", st.name, workers), func(t *testing.T) {
				testutil.WithProcs(t, workers+1)
				p, err := pool.New(pool.WithWorkers(workers))
				require.NoError(t, err)
				defer func() { require.NoError(t, p.Close()) }()
				watchdog(t, func() {
					testutil.MeetingRounds(t, testutil.MeetingRepeats, workers, func(arrive func()) { p.Run(func() { st.run(workers, arrive) }) })
				})
			})
		}
	}
}
