package runtime

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/spindle-go/spindle/internal/testutil"
)

// TestPiecesThatWaitForEachOtherAllStart hands P pieces that each wait
// until all P have started to a sleeping registry of P workers: every
// spawn style must get all of them running at once. A bulk spawn that
// keeps tasks behind a running one (in its part, or queued where no
// sleeper is woken for them) leaves some pieces waiting until the
// meeting's deadline. GOMAXPROCS is P+1 so that the P worker threads and
// the caller all have a P; the OS time-slices them on whatever cores
// there are.
func TestPiecesThatWaitForEachOtherAllStart(t *testing.T) {
	styles := []struct {
		name string
		run  func(r *Registry, n int, piece func())
	}{
		{"SpawnMany", func(r *Registry, n int, piece func()) {
			r.Run("test", func() {
				r.Scope("test", func(s *Scope) {
					s.SpawnMany(n, func(*Scope, int) { piece() })
				})
			})
		}},
		{"ForChunks", func(r *Registry, n int, piece func()) {
			r.Run("test", func() {
				CurrentWorker().ForChunks(0, n, 1, func(int, int) { piece() })
			})
		}},
		{"Spawn", func(r *Registry, n int, piece func()) {
			r.Run("test", func() {
				r.Scope("test", func(s *Scope) {
					for range n {
						s.Spawn(func(*Scope) { piece() })
					}
				})
			})
		}},
	}
	for _, workers := range []int{4, 8} {
		for _, st := range styles {
			t.Run(fmt.Sprintf("%s/P=%d", st.name, workers), func(t *testing.T) {
				testutil.WithProcs(t, workers+1)
				r, err := NewRegistry(Config{Workers: workers})
				require.NoError(t, err)
				defer func() { require.NoError(t, r.Close()) }()
				testutil.Watchdog(t, testutil.Limit, func() {
					testutil.MeetingRounds(t, testutil.MeetingRepeats, workers, func(arrive func()) { st.run(r, workers, arrive) })
				})
			})
		}
	}
}
