// Package cmdtest checks what the example commands print, for their
// tests. A command is its run function: main without os.Exit, taking its
// arguments and writers and returning the exit status.
package cmdtest

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// Case is one run of a command and what it must give.
type Case struct {
	Args   []string
	Status int      // the exit status
	Lines  []string // stdout, a regular expression per line; nil: stdout empty
	Error  string   // a part of stderr; "" checks nothing
}

// Run runs each case and checks its exit status, stdout and stderr. A run
// that has not returned within a minute fails the test (rather than let a
// bug hang the test binary); run must not call t.FailNow.
func Run(t *testing.T, run func(args []string, stdout, stderr io.Writer) int, cases []Case) {
	t.Helper()
	for _, tc := range cases {
		var stdout, stderr bytes.Buffer
		done := make(chan int, 1)
		go func() { done <- run(tc.Args, &stdout, &stderr) }()
		select {
		case status := <-done:
			assert.Equal(t, tc.Status, status, "%q: stderr %s", tc.Args, &stderr)
		case <-time.After(time.Minute):
			t.Fatalf("%q did not return within a minute", tc.Args)
		}
		assert.Contains(t, stderr.String(), tc.Error, "%q", tc.Args)
		if tc.Lines == nil {
			assert.Empty(t, stdout.String(), "%q", tc.Args)
			continue
		}
		assert.Regexp(t, "^"+strings.Join(tc.Lines, "\n")+"\n$", stdout.String(), "%q", tc.Args)
	}
}
