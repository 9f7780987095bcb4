package sleep

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestSteppingAsideSkipsTheYieldRounds: a worker out of work in a pool
// that is crowded or shares its Ps (StepAside) goes from its spin straight
// to announcing itself sleepy, without the rounds that yield while keeping
// the P; with no reason, or TasksBlock alone, it yields round after round,
// and a reason turned off again no longer counts.
func TestSteppingAsideSkipsTheYieldRounds(t *testing.T) {
	for _, tc := range []struct {
		on, off     []Aside
		aside, skip bool
	}{
		{nil, nil, false, false},
		{[]Aside{TasksBlock}, nil, true, false},
		{[]Aside{Crowded}, nil, true, true},
		{[]Aside{Shared}, nil, true, true},
		{[]Aside{Shared, Crowded}, []Aside{Shared}, true, true},
		{[]Aside{TasksBlock, Shared}, []Aside{Shared}, true, false},
		{[]Aside{TasksBlock, Shared}, []Aside{Shared, TasksBlock}, false, false},
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
			if tc.skip {
				want = spinRounds + 2 // the spin, the skip, the sleepy round
			}
			assert.Equal(t, want, calls)
		})
	}
}
