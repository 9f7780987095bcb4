package pool_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/spindle-go/spindle/pool"
)

func TestPinningBindsEachWorkerToOneCPU(t *testing.T) {
	var all unix.CPUSet
	require.NoError(t, unix.SchedGetaffinity(0, &all))
	// No guests: a guest runs on its caller's thread, which is not pinned.
	p := newPool(t, pool.WithWorkers(2), pool.WithPinning(true), pool.WithGuests(0))
	watchdog(t, func() {
		p.Scope(func(s *pool.Scope) {
			for range 2 {
				s.Spawn(func(*pool.Scope) {
					var set unix.CPUSet
					assert.NoError(t, unix.SchedGetaffinity(0, &set))
					assert.Equal(t, 1, set.Count(), "worker %d", pool.WorkerIndex())
				})
			}
		})
	})
}
