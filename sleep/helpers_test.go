package sleep

import (
	"runtime"
	"testing"
	"time"

	"github.com/spindle-go/spindle/internal/testutil"
)

// withWatchdog runs body in its own goroutine and fails the test with the
// diag outputs and a dump of all goroutines if it does not return within
// testutil.Limit (a lost wake-up shows up as a hang). body must not call
// t.FailNow (use assert, or return what to check).
func withWatchdog(t *testing.T, body func(), diag ...func() string) {
	t.Helper()
	testutil.InGoroutine(t, testutil.Limit, body, diag...)
}

// isBlocked reports whether worker i has committed to park: it registered as
// sleeping and nobody woke it yet.
func (s *Sleep) isBlocked(i int) bool {
	ws := &s.workers[i]
	ws.mu.Lock()
	defer ws.mu.Unlock()
	return ws.blocked
}

// waitBlocked waits until worker i is blocked.
func waitBlocked(s *Sleep, i int) { waitFor(func() bool { return s.isBlocked(i) }) }

// waitFor polls cond until it holds. It yields a few times, then sleeps
// between polls: on 2 cores, goroutines spinning on Gosched starve the
// thread-locked workers they wait for (each of those needs a P hand-off
// whenever it lost its P), and the tests crawl.
func waitFor(cond func() bool) {
	for i := 0; !cond(); i++ {
		if i < 16 {
			runtime.Gosched()
		} else {
			time.Sleep(20 * time.Microsecond)
		}
	}
}
