package sleep

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestSteppingAsideSkipsTheYieldRounds: a worker out of work in a pool
// with a reason to step aside (StepAside) goes from its spin straight to
// announcing itself sleepy, without the rounds that yield while keeping
// the P; with none it yields round after round, and a reason turned off
// again no longer counts.
func TestSteppingAsideSkipsTheYieldRounds(t *testing.T) {
	for _, tc := range []struct {
		on, off []Aside
		aside   bool
	}{
		{nil, nil, false},
		{[]Aside{TasksBlock}, nil, true},
		{[]Aside{Crowded}, nil, true},
		{[]Aside{Shared}, nil, true},
		{[]Aside{Shared, Crowded}, []Aside{Shared}, true},
		{[]Aside{TasksBlock, Shared}, []Aside{Shared, TasksBlock}, false},
	} {
		t.Run(fmt.Sprintf("on=%v/off=%v", tc.on, tc.off), func(t *testing.T) {
			s := New(1)
			for _, r := range tc.on {
				s.StepAside(r, true)
			}
			for _, r := range tc.off {
				s.StepAside(r, false)
			}
			assert.Equal(t, tc.aside, s.SteppingAside())
			var l Latch
			idle := s.StartLooking(0)
			calls := 0
			for !idle.Sleepy() && calls < roundsUntilSleeping+1 {
				s.NoWorkFound(&idle, &l, func() bool { return false })
				calls++
			}
			s.WorkFound(func() bool { return false })
			want := roundsUntilSleeping
			if tc.aside {
				want = spinRounds + 2 // the spin, the skip, the sleepy round
			}
			assert.Equal(t, want, calls)
		})
	}
}
