package deque

import (
	"testing"
	"time"

	"github.com/spindle-go/spindle/internal/testutil"
)

// watchdogLimit bounds every concurrent test body (testutil.Limit): not a
// performance assertion, a hang turned into a failure with stacks.
const watchdogLimit = testutil.Limit

// runWithWatchdog runs body in a goroutine of its own and fails the test
// with every goroutine's stack if body has not returned within limit. body
// must not call t.FailNow or require.*; it should use assert.* or hand its
// results back to the caller.
func runWithWatchdog(t testing.TB, limit time.Duration, body func()) {
	t.Helper()
	testutil.InGoroutine(t, limit, body)
}

// needTwoPs gives the concurrent tests (an owner against thieves) two Ps
// (testutil.NeedTwoPs): at one P no thief operation overlaps an owner's,
// and under GOMAXPROCS=1 the thieves of the fill-drain, growing and
// push-only runs never stole, nor did the linearizability histories
// record an overlap.
func needTwoPs(t *testing.T) { testutil.NeedTwoPs(t) }
