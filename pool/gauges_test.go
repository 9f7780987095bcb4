package pool_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/spindle-go/spindle/pool"
)

// The gauges read what the pool holds: with both workers held in tasks
// and five tasks queued behind them, Queued is 5 and Idle 0; once the
// tasks are done and the workers out of work, Queued is 0 and Idle 2.
func TestStatsGaugesReadQueuedAndIdle(t *testing.T) {
	needTwoPs(t) // two workers hold a task each
	p := newPool(t, pool.WithWorkers(2), pool.WithSpares(0), pool.WithGuests(0))
	release := make(chan struct{})
	running := make(chan struct{}, 2)
	watchdog(t, func() {
		for range 2 {
			p.Spawn(func() { running <- struct{}{}; <-release })
		}
		<-running
		<-running
		for range 5 {
			p.Spawn(func() {})
		}
		st := p.Stats()
		assert.Equal(t, 5, st.Queued, "tasks queued behind two held workers")
		assert.Equal(t, 0, st.Idle, "workers idle while both hold a task")
		close(release)
		// Out of work, each worker enters the idle protocol and stays
		// counted there, asleep or not.
		deadline := time.Now().Add(5 * time.Second)
		for st = p.Stats(); (st.Queued != 0 || st.Idle != 2) && time.Now().Before(deadline); st = p.Stats() {
			time.Sleep(time.Millisecond)
		}
		require.Equal(t, 0, st.Queued)
		require.Equal(t, 2, st.Idle)
	})
}
