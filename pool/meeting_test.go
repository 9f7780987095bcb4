package pool_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/spindle-go/spindle/internal/testutil"
	"github.com/spindle-go/spindle/pool"
)

// TestPiecesThatWaitForEachOtherAllStart hands P pieces that each wait
// until all P have started (testutil.Meeting) to a sleeping pool of P
// workers, through each way of spawning: all must run at once. GOMAXPROCS
// is P+1 so that the P worker threads and the caller all have a P.
func TestPiecesThatWaitForEachOtherAllStart(t *testing.T) {
	styles := []struct {
		name string
		run  func(p *pool.Pool, n int, piece func())
	}{
		{"SpawnMany", func(p *pool.Pool, n int, piece func()) {
			p.Run(func() {
				p.Scope(func(s *pool.Scope) {
					s.SpawnMany(n, func(*pool.Scope, int) { piece() })
				})
			})
		}},
		{"Spawn", func(p *pool.Pool, n int, piece func()) {
			p.Run(func() {
				p.Scope(func(s *pool.Scope) {
					for range n {
						s.Spawn(func(*pool.Scope) { piece() })
					}
				})
			})
		}},
		{"Group.Go", func(p *pool.Pool, n int, piece func()) {
			p.Run(func() {
				g, _ := p.NewGroup(context.Background())
				for range n {
					g.Go(func() error { piece(); return nil })
				}
				assert.NoError(t, g.Wait())
			})
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
					testutil.MeetingRounds(t, testutil.MeetingRepeats, workers, func(arrive func()) { st.run(p, workers, arrive) })
				})
			})
		}
	}
}
