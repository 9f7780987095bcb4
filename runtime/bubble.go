package runtime

import "time"

// A registry made inside a testing/synctest bubble (Go 1.25) has its
// goroutines in the bubble, whose fake clock moves only when every one of
// them is durably blocked: on a channel, a timer or a sync.WaitGroup of
// the bubble, never in a system call. So its workers park on channels
// rather than in the futex call (sleep.Sleep.ParkOnChannel), and its
// monitor, after a round that asks for a quick second look, waits on a
// timer rather than yielding until the clock has moved, which in a bubble
// it never would (monitor.go); while nothing is queued it looks less and
// less often (bubbleTick). Everything else already waits on channels and
// timers, which the bubble's goroutines made.

// bubbleEpochEnd is a time no real clock reads any more but a bubble's
// fake clock does for years of fake sleeping: the clock starts at
// midnight UTC, 1 January 2000.
var bubbleEpochEnd = time.Date(2010, time.January, 1, 0, 0, 0, 0, time.UTC)

// InSynctestBubble reports whether the calling goroutine runs inside a
// testing/synctest bubble. Go exports no such test; a bubble's clock is
// the one sign a program can read: it starts at 2000-01-01 and moves only
// as the bubble's goroutines sleep. A process whose real clock reads
// before 2010 (a machine that never set it) is taken for a bubble: its
// pools then park on channels, which is slower to wake but correct.
func InSynctestBubble() bool { return time.Now().Before(bubbleEpochEnd) }

// bubbleQuietTickMax bounds the monitor's tick in a bubble while nothing
// is queued (bubbleTick).
const bubbleQuietTickMax = time.Second

// bubbleTick is the monitor's next tick in a bubble, given its usual one:
// while no job is queued, no spare could start for anything, and each
// round that finds none doubles the tick, up to bubbleQuietTickMax. The
// fake clock moves from one timer to the next once the bubble's
// goroutines all wait, so tasks asleep for a fake minute behind blocked
// workers cost a round per tick, each in real time: a minute over the
// fast tick's 50 us is 1.2 million rounds, over the doubling's ticks
// about seventy. A job queued
// again is seen within the tick reached, in fake time; the bubble's clock
// then reads up to that much later than the sleeps alone would take it.
func (r *Registry) bubbleTick(tick time.Duration, quiet *int) time.Duration {
	if r.workQueued() {
		*quiet = 0
		return tick
	}
	*quiet = min(*quiet+1, 20)
	return min(tick<<*quiet, bubbleQuietTickMax)
}
