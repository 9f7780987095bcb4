// Package testutil holds what spindle's tests share: watchdogs that turn
// a hang into a failure with every goroutine's stack, whether the race
// detector is on, and a way for tests of parallel behaviour to get two Ps.
// It is for spindle's own tests only (internal).
package testutil

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"testing"
	"time"
)

// Limit bounds each concurrent test body. It is not a performance
// assertion: every body finishes in seconds at most when the code is
// correct, even under the race detector on two cores. It turns a deadlock
// or a lost wake-up into a failure with stacks instead of a silent hang.
const Limit = 60 * time.Second

// Stacks returns every goroutine's stack.
func Stacks() string {
	var buf bytes.Buffer
	_ = pprof.Lookup("goroutine").WriteTo(&buf, 2)
	return buf.String()
}

// Watchdog runs body on the test goroutine (so require and t.FailNow work
// in it) and, if body has not returned within limit, prints every
// goroutine's stack and ends the test binary: a goroutine other than the
// test's cannot stop the test goroutine, and a deadlocked body never
// returns.
func Watchdog(t testing.TB, limit time.Duration, body func()) {
	t.Helper()
	done := make(chan struct{})
	name := t.Name()
	go func() {
		timer := time.NewTimer(limit)
		defer timer.Stop()
		select {
		case <-done:
		case <-timer.C:
			fmt.Fprintf(os.Stderr, "%s: still running after %v (deadlock?); goroutines:\n%s", name, limit, Stacks())
			os.Exit(2)
		}
	}()
	defer close(done)
	body()
}

// InGoroutine runs body in a goroutine of its own and waits for it. If
// body has not returned within limit, the test fails with the output of
// each diag function and every goroutine's stack. body must not call
// t.FailNow (or require): it should use assert or hand back what to check.
func InGoroutine(t testing.TB, limit time.Duration, body func(), diag ...func() string) {
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
		for _, d := range diag {
			buf.WriteString(d())
			buf.WriteByte('\n')
		}
		t.Fatalf("test body still running after %v; %sgoroutines:\n%s", limit, buf.String(), Stacks())
	}
}

// NeedTwoPs raises GOMAXPROCS to 2 for the rest of t, restoring it when t
// ends, if it is lower. Tests that assert parallel behaviour (steals
// happened, work spread over workers, operations overlapped) call it
// first: with a single P the goroutines take turns, switching only where
// one blocks or is preempted (after 10 ms at the earliest), so whether
// anything overlaps would be chance.
func NeedTwoPs(t testing.TB) { NeedProcs(t, 2) }

// NeedProcs raises GOMAXPROCS to n for the rest of the test if it is
// lower: a pool runs no more workers at once than there are Ps, and a
// test whose tasks must run on n workers at once (each holding one while
// another starts) needs n Ps; Go allows more Ps than CPUs. It reports
// whether it raised GOMAXPROCS.
func NeedProcs(t testing.TB, n int) (raised bool) {
	t.Helper()
	if prev := runtime.GOMAXPROCS(0); prev < n {
		runtime.GOMAXPROCS(n)
		t.Cleanup(func() { runtime.GOMAXPROCS(prev) })
		t.Logf("GOMAXPROCS raised from %d to %d for this test: it asserts parallel behaviour", prev, n)
		return true
	}
	return false
}
