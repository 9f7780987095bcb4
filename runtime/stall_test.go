package runtime

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestStallIsReportedOnce: when every worker and spare is blocked in a
// task while tasks are queued, the monitor says so once, naming the pool
// and Isolate; the pool goes on once the tasks resume.
func TestStallIsReportedOnce(t *testing.T) {
	if !canWatchThreads {
		t.Skip("no blocked-worker monitor here")
	}
	reports := make(chan string, 4)
	prev := reportStall
	reportStall = func(msg string) { reports <- msg }
	t.Cleanup(func() { reportStall = prev })
	r := newRegistry(t, Config{Workers: 1, Spares: 1, Name: "stalled"})
	release := make(chan struct{})
	watchdog(t, func() {
		done := make(chan struct{}, 3)
		for range 3 { // the worker's, the spare's, and one queued
			r.Spawn("test", func() { <-release; done <- struct{}{} })
		}
		msg := <-reports
		assert.Contains(t, msg, `pool "stalled"`)
		assert.Contains(t, msg, "all 2 of its workers and spares")
		assert.Contains(t, msg, "pool.Isolate")
		close(release)
		for range 3 {
			<-done
		}
	})
	assert.Empty(t, reports, "reported more than once")
}
