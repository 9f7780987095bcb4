package runtime

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A detached task spawned in a guest's call goes on the guest's deque;
// when the call returns it moves to the injector, so that no job stays on
// a slot whose goroutine has left. The only worker is blocked meanwhile,
// so nothing else can take the task before the check.
func TestGuestMovesLeftoverJobsToTheInjector(t *testing.T) {
	r := newRegistry(t, Config{Workers: 1, Guests: 1})
	watchdog(t, func() {
		started, block := make(chan struct{}), make(chan struct{})
		r.Spawn("test spawn", func() { close(started); <-block })
		<-started
		ran := make(chan int, 1)
		var slot *Worker
		r.Run("test run", func() {
			slot = CurrentWorker()
			r.Spawn("test spawn", func() { ran <- CurrentWorker().Index() })
		})
		require.NotNil(t, slot)
		assert.True(t, slot.guest, "the call did not run as a guest")
		assert.True(t, slot.deque.Empty(), "the detached task stayed on the guest's deque")
		assert.True(t, r.injector.nonEmpty(), "the detached task is not on the injector")
		close(block)
		assert.Equal(t, 0, <-ran, "the detached task ran elsewhere than on the worker")
	})
}

// Without guest slots, saturated is false whatever the counts say: the
// checks that consult it (a steal round's, a guest's push) then cost one
// load of an immutable field.
func TestSaturatedWithoutGuests(t *testing.T) {
	r := newRegistry(t, Config{Workers: 1})
	assert.False(t, r.saturated())
	g := newRegistry(t, Config{Workers: 1, Guests: 2})
	g.guests.procs.Store(2)
	g.guests.running.Store(1)
	assert.False(t, g.saturated())
	g.guests.running.Store(2)
	assert.True(t, g.saturated())
	g.guests.running.Store(0)
}
