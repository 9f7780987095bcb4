package pool_test

import (
	"testing"

	"github.com/spindle-go/spindle/internal/testutil"
)

// watchdogLimit bounds each concurrent test (testutil.Limit).
const watchdogLimit = testutil.Limit

// watchdog runs body on the test goroutine (so require works) and ends the
// test binary with every goroutine's stack if body has not returned within
// testutil.Limit: a deadlock fails instead of hanging.
func watchdog(t *testing.T, body func()) { testutil.Watchdog(t, testutil.Limit, body) }
