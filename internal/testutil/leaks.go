package testutil

import (
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"
)

// MainWithoutLeaks is a test binary's TestMain: it runs the tests and,
// if they pass, closes the registries the process keeps for good
// (closeKept: runtime.CloseKept, passed in because the runtime package's
// own tests cannot import a package that imports it) and fails the binary
// if any goroutine is left: every pool's workers, spares and monitor must
// end with its Close, and no test may leave one running.
func MainWithoutLeaks(m *testing.M, closeKept func() error) {
	code := m.Run()
	if code == 0 {
		if err := closeKept(); err != nil {
			fmt.Fprintln(os.Stderr, "closing the pools kept for good:", err)
			code = 1
		} else if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "leak check:", err)
			code = 1
		}
	}
	os.Exit(code)
}
