package sleep

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pack builds a counters word from its fields.
func pack(sleeping, inactive int, jec uint32) counters {
	return counters(jec)<<jecShift | counters(inactive)<<threadBits | counters(sleeping)
}

func newCounters(c counters) *atomicCounters {
	a := new(atomicCounters)
	a.v.Store(uint64(c))
	return a
}

func TestCountersFields(t *testing.T) {
	tests := []struct {
		name     string
		sleeping int
		inactive int
		jec      uint32
	}{
		{"zero", 0, 0, 0},
		{"sleeping only", 3, 0, 0},
		{"inactive only", 0, 7, 0},
		{"jec only", 0, 0, 12345},
		{"all small", 2, 5, 9},
		{"max threads", maxThreads, maxThreads, 0},
		{"max jec", 0, 0, math.MaxUint32},
		{"all max", maxThreads, maxThreads, math.MaxUint32},
		{"odd jec", 1, 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := pack(tt.sleeping, tt.inactive, tt.jec)
			assert.Equal(t, tt.sleeping, c.sleeping())
			assert.Equal(t, tt.inactive, c.inactive())
			assert.Equal(t, tt.jec, c.jec())
			assert.Equal(t, tt.jec%2 == 1, c.sleepy())
			assert.Equal(t, tt.inactive-tt.sleeping, c.awakeButIdle())
		})
	}
}

func TestCountersAddSub(t *testing.T) {
	tests := []struct {
		name string
		from counters
		op   func(a *atomicCounters)
		want counters
	}{
		{"addInactive", pack(0, 0, 4), (*atomicCounters).addInactive, pack(0, 1, 4)},
		{"addInactive keeps sleeping", pack(3, 3, 7), (*atomicCounters).addInactive, pack(3, 4, 7)},
		{"addInactive to max", pack(0, maxThreads-1, math.MaxUint32), (*atomicCounters).addInactive, pack(0, maxThreads, math.MaxUint32)},
		{"subInactive", pack(0, 1, 4), func(a *atomicCounters) { a.subInactive() }, pack(0, 0, 4)},
		{"subInactive keeps sleeping", pack(2, 5, 9), func(a *atomicCounters) { a.subInactive() }, pack(2, 4, 9)},
		{"subInactive at max jec", pack(maxThreads-1, maxThreads, math.MaxUint32), func(a *atomicCounters) { a.subInactive() }, pack(maxThreads-1, maxThreads-1, math.MaxUint32)},
		{"subSleeping", pack(1, 1, 3), (*atomicCounters).subSleeping, pack(0, 1, 3)},
		{"subSleeping max", pack(maxThreads, maxThreads, math.MaxUint32), (*atomicCounters).subSleeping, pack(maxThreads-1, maxThreads, math.MaxUint32)},
		{"tryAddSleeping", pack(0, 2, 5), func(a *atomicCounters) { a.tryAddSleeping(5) }, pack(1, 2, 5)},
		{"tryAddSleeping to max", pack(maxThreads-1, maxThreads, 1), func(a *atomicCounters) { a.tryAddSleeping(1) }, pack(maxThreads, maxThreads, 1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := newCounters(tt.from)
			tt.op(a)
			got := a.load()
			assert.Equal(t, tt.want.sleeping(), got.sleeping(), "sleeping")
			assert.Equal(t, tt.want.inactive(), got.inactive(), "inactive")
			assert.Equal(t, tt.want.jec(), got.jec(), "jec")
		})
	}
}

func TestCountersSubInactiveReturnsOld(t *testing.T) {
	a := newCounters(pack(2, 3, 11))
	old := a.subInactive()
	assert.Equal(t, pack(2, 3, 11), old)
	assert.Equal(t, pack(2, 2, 11), a.load())
}

func TestCountersJECWrap(t *testing.T) {
	tests := []struct {
		name     string
		sleeping int
		inactive int
	}{
		{"empty", 0, 0},
		{"some", 2, 3},
		{"max", maxThreads, maxThreads},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := pack(tt.sleeping, tt.inactive, math.MaxUint32)
			n := c.withJECIncremented()
			assert.Equal(t, uint32(0), n.jec())
			assert.Equal(t, tt.sleeping, n.sleeping())
			assert.Equal(t, tt.inactive, n.inactive())

			// The same wrap through the atomic transitions: MaxUint32 is
			// odd (sleepy), markActive moves it to 0, markSleepy to 1.
			a := newCounters(c)
			after := a.markActive()
			assert.Equal(t, uint32(0), after.jec())
			assert.Equal(t, tt.sleeping, after.sleeping())
			assert.Equal(t, tt.inactive, after.inactive())
			assert.Equal(t, uint32(1), a.markSleepy())
			assert.Equal(t, pack(tt.sleeping, tt.inactive, 1), a.load())

			// A sleepy snapshot taken right before the wrap is
			// invalidated by the wrapping post.
			a = newCounters(pack(tt.sleeping, tt.inactive, math.MaxUint32-1))
			snap := a.markSleepy()
			require.Equal(t, uint32(math.MaxUint32), snap)
			a.markActive()
			assert.False(t, a.tryAddSleeping(snap))
			assert.Equal(t, pack(tt.sleeping, tt.inactive, 0), a.load())
		})
	}
}

func TestCountersMarkSleepy(t *testing.T) {
	tests := []struct {
		name     string
		jec      uint32
		wantJEC  uint32 // returned and stored
		wantMove bool
	}{
		{"even moves to odd", 0, 1, true},
		{"even moves to odd 2", 10, 11, true},
		{"odd stays", 7, 7, false},
		{"odd stays at max", math.MaxUint32, math.MaxUint32, false},
		{"even near wrap", math.MaxUint32 - 1, math.MaxUint32, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := newCounters(pack(1, 2, tt.jec))
			got := a.markSleepy()
			assert.Equal(t, tt.wantJEC, got)
			assert.Equal(t, uint32(1), got%2, "snapshot is odd")
			assert.Equal(t, pack(1, 2, tt.wantJEC), a.load())
			assert.Equal(t, tt.wantMove, tt.jec != got)
			// Announcing twice changes nothing.
			assert.Equal(t, got, a.markSleepy())
			assert.Equal(t, pack(1, 2, tt.wantJEC), a.load())
		})
	}
}

func TestCountersMarkActive(t *testing.T) {
	tests := []struct {
		name    string
		jec     uint32
		wantJEC uint32
	}{
		{"odd moves to even", 1, 2},
		{"odd moves to even 2", 13, 14},
		{"even is a pure load", 0, 0},
		{"even is a pure load 2", 42, 42},
		{"odd max wraps to zero", math.MaxUint32, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := newCounters(pack(2, 3, tt.jec))
			got := a.markActive()
			assert.Equal(t, pack(2, 3, tt.wantJEC), got, "returns the counters after")
			assert.Equal(t, got, a.load())
			assert.False(t, got.sleepy())
			// Again: now even, so nothing moves.
			assert.Equal(t, got, a.markActive())
			assert.Equal(t, got, a.load())
		})
	}
}

func TestCountersTryAddSleeping(t *testing.T) {
	tests := []struct {
		name string
		// between runs after the snapshot and before tryAddSleeping.
		between func(a *atomicCounters)
		want    bool
	}{
		{"nothing happened", func(*atomicCounters) {}, true},
		{"another worker got sleepy", func(a *atomicCounters) { a.markSleepy() }, true},
		{"another worker started looking", (*atomicCounters).addInactive, true},
		{"another worker slept", func(a *atomicCounters) { a.v.Add(uint64(sleepingOne)) }, true},
		{"work posted", func(a *atomicCounters) { a.markActive() }, false},
		{"work posted then sleepy again", func(a *atomicCounters) { a.markActive(); a.markSleepy() }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := newCounters(pack(0, 2, 8))
			snap := a.markSleepy()
			require.Equal(t, uint32(9), snap)
			tt.between(a)
			before := a.load()
			got := a.tryAddSleeping(snap)
			assert.Equal(t, tt.want, got)
			after := a.load()
			if got {
				assert.Equal(t, before+sleepingOne, after)
			} else {
				assert.Equal(t, before, after, "a failed tryAddSleeping writes nothing")
			}
		})
	}
}
