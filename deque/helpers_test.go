package deque

import (
	"bytes"
	"runtime/pprof"
	"testing"
	"time"
)

// watchdogLimit bounds every concurrent test body. It is not a performance
// assertion: a correct deque finishes each body in a few seconds even under
// the race detector on two cores. It only turns a hang (a livelock or a lost
// wake-up in a test's own coordination) into a failure with stacks.
const watchdogLimit = 60 * time.Second

// runWithWatchdog runs body in a new goroutine and waits for it. If body has
// not returned within limit, the test fails with a dump of every goroutine's
// stack instead of hanging until go test's -timeout kills the binary.
//
// body does not run on the test goroutine, so it must not call t.FailNow or
// require.*; it should use assert.* or hand its results back to the caller.
func runWithWatchdog(t testing.TB, limit time.Duration, body func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		body()
	}()
	timer := time.NewTimer(limit)
	defer timer.Stop()
	select {
	case <-done:
	case <-timer.C:
		var buf bytes.Buffer
		_ = pprof.Lookup("goroutine").WriteTo(&buf, 2)
		t.Fatalf("test body still running after %v; goroutines:\n%s", limit, buf.String())
	}
}
