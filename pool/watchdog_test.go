package pool_test

import (
	"bytes"
	"fmt"
	"os"
	"runtime/pprof"
	"testing"
	"time"
)

// watchdogLimit bounds each concurrent test. It is not a performance
// assertion: every test here finishes in well under a second when the pool
// is correct, even under the race detector. It turns a deadlock into a
// failure with every goroutine's stack instead of a silent hang.
const watchdogLimit = 60 * time.Second

// watchdog runs body on the test goroutine (so require works) and, if body
// has not returned within watchdogLimit, prints every goroutine's stack and
// kills the test binary.
func watchdog(t *testing.T, body func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		select {
		case <-done:
		case <-time.After(watchdogLimit):
			var buf bytes.Buffer
			_ = pprof.Lookup("goroutine").WriteTo(&buf, 2)
			fmt.Fprintf(os.Stderr, "%s: still running after %v (deadlock?); goroutines:\n%s", t.Name(), watchdogLimit, buf.String())
			os.Exit(2)
		}
	}()
	defer close(done)
	body()
}
