package runtime

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// In a bubble the monitor looks less and less often while nothing is
// queued (every round at the fast tick cost a round of real time per 50
// us of fake sleep), and at its usual tick again once a job is queued.
func TestBubbleTickBacksOffWhileNothingIsQueued(t *testing.T) {
	r := newRegistry(t, Config{Workers: 1})
	quiet := 0
	var ticks []time.Duration
	for range 16 {
		ticks = append(ticks, r.bubbleTick(monitorFastTick, &quiet))
	}
	assert.Equal(t, 2*monitorFastTick, ticks[0])
	for i := 1; i < len(ticks); i++ {
		assert.GreaterOrEqual(t, ticks[i], ticks[i-1], "tick %d shrank", i)
	}
	assert.Equal(t, bubbleQuietTickMax, ticks[len(ticks)-1])
	waitAsleep(t, r, 1) // and not woken by the push below: the job stays queued
	r.injector.push(&Job{})
	assert.Equal(t, monitorFastTick, r.bubbleTick(monitorFastTick, &quiet))
	assert.Zero(t, quiet)
	r.injector.pop()
}
