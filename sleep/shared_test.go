package sleep

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestSharedSkipsTheYieldRounds: a worker out of work in a pool whose Ps
// are shared (SetShared) goes from its spin straight to announcing itself
// sleepy, without the rounds that yield while keeping the P; otherwise it
// yields round after round.
func TestSharedSkipsTheYieldRounds(t *testing.T) {
	for _, shared := range []bool{false, true} {
		s := New(1)
		s.SetShared(shared)
		var l Latch
		idle := s.StartLooking(0)
		calls := 0
		for !idle.Sleepy() && calls < roundsUntilSleeping+1 {
			s.NoWorkFound(&idle, &l, func() bool { return false })
			calls++
		}
		s.WorkFound(func() bool { return false })
		want := roundsUntilSleeping
		if shared {
			want = spinRounds + 2 // the spin, the skip, the sleepy round
		}
		assert.Equal(t, want, calls, "shared=%v", shared)
	}
}
