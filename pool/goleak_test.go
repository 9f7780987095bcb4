package pool_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/spindle-go/spindle/pool"
)

// The guide's goleak options ("Leak checks: goleak") serve a check per
// test too: after tasks that blocked on the default pool, its dormant
// spares and its monitor remain for a while, and the options cover them,
// while a check without them reports them.
func TestTheGuidesGoleakOptionsCoverTheDefaultPoolsSpares(t *testing.T) {
	needSpares(t)
	if pool.Default().Stats().SparesStarted != 0 {
		t.Skip("the default pool's spares started before this test (-count > 1): goleak.IgnoreCurrent would cover them")
	}
	before := goleak.IgnoreCurrent()
	watchdog(t, func() {
		// More tasks than workers, each blocked until a spare has
		// started (or 5 s): a round of the monitor looks at a few
		// workers, so at many Ps a short sleep can end unseen.
		deadline := time.Now().Add(5 * time.Second)
		g, _ := pool.NewGroup(context.Background())
		for range pool.Default().Workers() + 8 {
			g.Go(func() error {
				for pool.Default().Stats().SparesStarted == 0 && time.Now().Before(deadline) {
					time.Sleep(time.Millisecond)
				}
				return nil
			})
		}
		require.NoError(t, g.Wait())
	})
	require.Positive(t, pool.Default().Stats().SparesStarted, "no spare started: the check below shows nothing")
	if goleak.Find(before) == nil {
		// goleak leaves out goroutines in a system call: dormant spares
		// parked in the futex call (no reason to step aside held when
		// they parked, as in a full run at GOMAXPROCS=128) are not
		// reported, and the options have nothing to cover.
		t.Skip("the default pool's dormant spares wait in a system call, which goleak does not report")
	}
	goleak.VerifyNone(t, before,
		goleak.IgnoreAnyFunction("github.com/spindle-go/spindle/runtime.(*Worker).start"),
		goleak.IgnoreAnyFunction("github.com/spindle-go/spindle/runtime.(*Registry).monitor"))
}
