//go:build linux && !spindle_portable

package sleep

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestParksGiveThePBackWhileSteppingAside: while any reason to step aside
// holds, every park waits on the channel (giving the P back), and stops
// when none does; a slot that parks on the channel (ParkOnChannel) always
// does.
func TestParksGiveThePBackWhileSteppingAside(t *testing.T) {
	s := New(2)
	s.ParkOnChannel(1)
	assert.False(t, s.workers[0].parker.givesP(), "before")
	assert.True(t, s.workers[1].parker.givesP(), "on the channel, before")
	for _, r := range []Aside{TasksBlock, Crowded, Shared} {
		s.StepAside(r, true)
		assert.True(t, s.workers[0].parker.givesP(), "reason %d", r)
		s.StepAside(r, false)
		assert.False(t, s.workers[0].parker.givesP(), "reason %d off", r)
		assert.True(t, s.workers[1].parker.givesP(), "on the channel, reason %d off", r)
	}
}
