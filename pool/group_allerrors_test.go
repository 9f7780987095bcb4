package pool_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/spindle-go/spindle/pool"
)

// With SetAllErrors, Wait reports every error the tasks returned, each
// visible to errors.Is; without it, only the first, as errgroup.
func TestGroupSetAllErrorsReportsEveryFailure(t *testing.T) {
	p := newPool(t, pool.WithWorkers(2))
	errs := make([]error, 8)
	for i := range errs {
		errs[i] = fmt.Errorf("task %d failed", i)
	}
	for _, all := range []bool{false, true} {
		t.Run(fmt.Sprintf("all=%v", all), func(t *testing.T) {
			var g pool.Group // no context: every task runs
			p.Run(func() { g.SetAllErrors(all) })
			watchdog(t, func() {
				for i := range errs {
					g.Go(func() error { return errs[i] })
				}
				g.Go(func() error { return nil })
				err := g.Wait()
				require.Error(t, err)
				found := 0
				for _, e := range errs {
					if errors.Is(err, e) {
						found++
					}
				}
				if all {
					assert.Equal(t, len(errs), found, "errors reported: %v", err)
				} else {
					assert.Equal(t, 1, found, "errors reported: %v", err)
				}
			})
		})
	}
}

// One error comes back as itself; the context's cause is the first error
// and a group from NewGroup still skips what had not started.
func TestGroupSetAllErrorsKeepsTheFirstAsTheCause(t *testing.T) {
	boom := errors.New("boom")
	g, ctx := pool.NewGroup(context.Background())
	g.SetAllErrors(true)
	watchdog(t, func() {
		g.Go(func() error { return boom })
		assert.Same(t, boom, g.Wait(), "a single error is returned as it is")
	})
	assert.Same(t, boom, context.Cause(ctx))
}

// SetAllErrors while tasks are queued or running panics, as SetLimit does.
func TestGroupSetAllErrorsWhileBusyPanics(t *testing.T) {
	g, _ := pool.NewGroup(context.Background())
	release := make(chan struct{})
	g.Go(func() error { <-release; return nil })
	assert.PanicsWithValue(t, "pool.Group.SetAllErrors: called while tasks of the group are queued or running, or Wait runs",
		func() { g.SetAllErrors(true) })
	close(release)
	require.NoError(t, g.Wait())
}
