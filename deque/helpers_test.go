package deque

import (
	"bytes"
	"runtime"
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

// needTwoPs raises GOMAXPROCS to 2 for the rest of t, restoring it when t
// ends, if it is lower. The concurrent tests (an owner against thieves)
// call it first: with a single P their goroutines take turns, switching
// only where one yields or is preempted (after 10 ms at the earliest), so
// no thief operation overlaps an owner's and the races they exist to
// provoke never happen. Under go test with GOMAXPROCS=1 the thieves of
// the fill-drain, growing and push-only runs never stole at all, and the
// linearizability histories recorded no overlap.
func needTwoPs(t *testing.T) {
	t.Helper()
	if prev := runtime.GOMAXPROCS(0); prev < 2 {
		runtime.GOMAXPROCS(2)
		t.Cleanup(func() { runtime.GOMAXPROCS(prev) })
		t.Logf("GOMAXPROCS raised from %d to 2 for this test: it needs thieves running alongside the owner", prev)
	}
}
