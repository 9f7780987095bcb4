package sleep

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestLatchTransitions(t *testing.T) {
	type step struct {
		op   string // getSleepy, fallAsleep, wakeUp, set, reset
		ok   bool   // result of getSleepy/fallAsleep/set
		want uint32 // state after the step
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{"set from unset", []step{
			{"set", false, latchSet},
		}},
		{"sleepy then set: no wake owed", []step{
			{"getSleepy", true, latchSleepy},
			{"set", false, latchSet},
			{"fallAsleep", false, latchSet},
		}},
		{"sleeping then set: wake owed", []step{
			{"getSleepy", true, latchSleepy},
			{"fallAsleep", true, latchSleeping},
			{"set", true, latchSet},
			{"wakeUp", false, latchSet},
		}},
		{"sleep cycle without set", []step{
			{"getSleepy", true, latchSleepy},
			{"fallAsleep", true, latchSleeping},
			{"wakeUp", false, latchUnset},
			{"getSleepy", true, latchSleepy},
		}},
		{"wakeUp from sleepy", []step{
			{"getSleepy", true, latchSleepy},
			{"wakeUp", false, latchUnset},
		}},
		{"wakeUp from unset", []step{
			{"wakeUp", false, latchUnset},
		}},
		{"getSleepy twice", []step{
			{"getSleepy", true, latchSleepy},
			{"getSleepy", false, latchSleepy},
		}},
		{"fallAsleep needs sleepy", []step{
			{"fallAsleep", false, latchUnset},
		}},
		{"getSleepy after set fails", []step{
			{"set", false, latchSet},
			{"getSleepy", false, latchSet},
			{"fallAsleep", false, latchSet},
			{"wakeUp", false, latchSet},
		}},
		{"set twice", []step{
			{"getSleepy", true, latchSleepy},
			{"fallAsleep", true, latchSleeping},
			{"set", true, latchSet},
			{"set", false, latchSet},
		}},
		{"reset and reuse", []step{
			{"getSleepy", true, latchSleepy},
			{"fallAsleep", true, latchSleeping},
			{"set", true, latchSet},
			{"reset", false, latchUnset},
			{"getSleepy", true, latchSleepy},
			{"set", false, latchSet},
			{"reset", false, latchUnset},
			{"set", false, latchSet},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var l Latch
			assert.False(t, l.Probe())
			for i, s := range tt.steps {
				var ok bool
				switch s.op {
				case "getSleepy":
					ok = l.getSleepy()
				case "fallAsleep":
					ok = l.fallAsleep()
				case "wakeUp":
					l.wakeUp()
				case "set":
					ok = l.Set()
				case "reset":
					l.Reset()
				default:
					t.Fatalf("bad op %q", s.op)
				}
				assert.Equal(t, s.ok, ok, "step %d %s result", i, s.op)
				assert.Equal(t, s.want, l.state.Load(), "step %d %s state", i, s.op)
				assert.Equal(t, s.want == latchSet, l.Probe(), "step %d %s Probe", i, s.op)
			}
		})
	}
}
