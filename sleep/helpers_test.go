package sleep

import (
	"bytes"
	"runtime"
	"runtime/pprof"
	"testing"
	"time"
)

// watchdogTimeout bounds every concurrent test body. A lost wake-up shows up
// as a hang, and the goroutine dump shows who waits where.
const watchdogTimeout = 60 * time.Second

// withWatchdog runs body in its own goroutine and fails the test with a
// dump of all goroutines if it does not return within watchdogTimeout.
// body must not call t.FailNow (use assert, or return what to check).
func withWatchdog(t *testing.T, body func(), diag ...func() string) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		body()
	}()
	select {
	case <-done:
	case <-time.After(watchdogTimeout):
		var buf bytes.Buffer
		for _, d := range diag {
			buf.WriteString(d())
			buf.WriteByte('\n')
		}
		_ = pprof.Lookup("goroutine").WriteTo(&buf, 2)
		t.Fatalf("not done after %v (lost wake-up?); goroutines:\n%s", watchdogTimeout, buf.String())
	}
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
