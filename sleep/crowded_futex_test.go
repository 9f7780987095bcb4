//go:build linux && !spindle_portable

package sleep

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestCrowdedParksGiveThePBack: while the pool is crowded, every park
// waits on the channel (giving the P back), as with ReleaseP, and stops
// when it no longer is.
func TestCrowdedParksGiveThePBack(t *testing.T) {
	s := New(2)
	for i := range 2 {
		assert.False(t, s.workers[i].parker.givesP(), "worker %d before", i)
	}
	s.SetCrowded(true)
	for i := range 2 {
		assert.True(t, s.workers[i].parker.givesP(), "worker %d crowded", i)
	}
	s.SetCrowded(false)
	assert.False(t, s.workers[0].parker.givesP(), "after")
}

// TestSharedParksGiveThePBack: while goroutines outside the pool compute
// on its Ps (SetShared), every park gives the P back, and stops when they
// no longer do.
func TestSharedParksGiveThePBack(t *testing.T) {
	s := New(2)
	s.SetShared(true)
	for i := range 2 {
		assert.True(t, s.workers[i].parker.givesP(), "worker %d shared", i)
	}
	s.SetShared(false)
	assert.False(t, s.workers[0].parker.givesP(), "after")
}
