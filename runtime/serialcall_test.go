package runtime

import (
	goruntime "runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A call from a goroutine runs serially only while the registry is
// saturated (its guests in a call fill the Ps, or did since the monitor's
// last round) and open; it counts as a guest in a call and as a call from
// outside (which keeps the monitor looking) until it leaves, and a
// refused one counts nowhere.
func TestSerialCallOnlyWhileSaturated(t *testing.T) {
	for _, c := range []struct {
		name    string
		watched bool
		procs   int32
		running int32
		filled  bool
		closed  bool
		want    bool
	}{
		{name: "callers fill the Ps", watched: true, procs: 2, running: 2, want: true},
		{name: "filled since the last round", watched: true, procs: 2, running: 1, filled: true, want: true},
		{name: "a P without a caller", watched: true, procs: 2, running: 1},
		{name: "no caller", watched: true, procs: 2},
		{name: "no monitor", procs: 2, running: 2, filled: true},
		{name: "closed", watched: true, procs: 2, running: 2, closed: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newUnmonitored(t, Config{Workers: 1, Guests: 4})
			gs := &r.guests
			gs.watched = c.watched // the monitor's: played by the test
			gs.procs.Store(c.procs)
			gs.running.Store(c.running)
			gs.filled.Store(c.filled)
			r.closed.Store(c.closed)
			defer func() {
				r.closed.Store(false)
				gs.running.Store(0)
			}()
			call, got := r.EnterSerialCall()
			require.Equal(t, c.want, got)
			if !got {
				assert.Equal(t, c.running, gs.running.Load(), "a refused serial call changed the guests in a call")
				assert.Zero(t, r.active.Load(), "a refused serial call stayed admitted")
				return
			}
			assert.Equal(t, c.running+1, gs.running.Load(), "a serial call is not counted as a guest in a call")
			assert.Equal(t, int64(1), r.active.Load(), "a serial call is not counted as a call from outside")
			call.Leave()
			assert.Equal(t, c.running, gs.running.Load())
			assert.Zero(t, r.active.Load())
		})
	}
}

// GOMAXPROCS raised past the guests in a call ends the saturation at the
// next call's reading of it (a serial call's too): the registry's Ps are
// no longer all taken, and calls must not go on running serially until
// the monitor's next round.
func TestRaisedProcsEndSaturation(t *testing.T) {
	r := startSized(t, 2, Config{Workers: 1, Guests: 4})
	gs := &r.guests
	gs.watched = true // the monitor's: played by the test
	gs.running.Store(2)
	gs.filled.Store(true)
	defer gs.running.Store(0)
	require.Equal(t, int32(2), gs.procs.Load(), "guests.procs does not follow the registry's reading")
	require.True(t, r.saturated())
	goruntime.GOMAXPROCS(3)
	_, ok := r.EnterSerialCall()
	assert.False(t, ok, "a serial call admitted at more Ps than guests in a call")
	assert.Equal(t, int32(3), gs.procs.Load())
	assert.False(t, gs.filled.Load(), "the resize left filled set")
}

// A serial call is overdue once the monitor has begun two rounds since it
// began (one may begin right after it did).
func TestSerialCallOverdueAfterTwoRounds(t *testing.T) {
	r := newUnmonitored(t, Config{Workers: 1, Guests: 4}) // the test plays the monitor
	gs := &r.guests
	gs.watched = true
	gs.running.Store(gs.procs.Load()) // the callers fill the Ps
	defer gs.running.Store(0)
	call, ok := r.EnterSerialCall()
	require.True(t, ok)
	defer call.Leave()
	assert.False(t, call.Overdue(), "overdue as it began")
	gs.rounds.Add(1)
	assert.False(t, call.Overdue(), "overdue after one round, which may have begun as it did")
	gs.rounds.Add(1)
	assert.True(t, call.Overdue(), "not overdue after two rounds")
}

// A serial call's admission pays the kick it owes the monitor, so that the
// monitor looks, and counts the rounds Overdue reads, while only serial
// calls run: none hands the workers a job, where a guest's call pays it.
func TestSerialCallPaysTheMonitorsKick(t *testing.T) {
	r := newRegistry(t, Config{Workers: 1, Guests: 4, Spares: 1})
	gs := &r.guests
	gs.running.Store(gs.procs.Load()) // the callers fill the Ps
	defer gs.running.Store(0)
	call, ok := r.EnterSerialCall()
	require.True(t, ok)
	defer call.Leave()
	assert.False(t, r.spares.kickOwed.Load(), "a serial call left the monitor's kick owed")
}
