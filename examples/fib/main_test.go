package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/spindle-go/spindle/pool"
)

func TestFib(t *testing.T) {
	p, err := pool.New(pool.WithWorkers(2))
	require.NoError(t, err)
	defer p.Close()

	want := []int{0, 1, 1, 2, 3, 5, 8, 13, 21, 34, 55}
	for n, w := range want {
		var call, join int
		p.Run(func() { call, join = fibCall(n), fibJoin(n) })
		assert.Equal(t, w, call, "fibCall(%d)", n)
		assert.Equal(t, w, join, "fibJoin(%d)", n)
	}

	// Deep enough for idle workers to steal, on the pool and off it
	// (where both use pool.Default()).
	var call, join int
	p.Run(func() { call, join = fibCall(20), fibJoin(20) })
	assert.Equal(t, 6765, call)
	assert.Equal(t, 6765, join)
	assert.Equal(t, 6765, fibCall(20))
	assert.Equal(t, 6765, fibJoin(20))
}

func TestFibCommand(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		status int
		lines  []string // stdout, a regular expression per line; none: empty
		error  string
	}{
		{args: []string{"-n", "22", "-workers", "2"}, lines: []string{
			`fib\(22\), workers 2, GOMAXPROCS \d+:`,
			`  serial +\d+\.\d ms`,
			`  forkjoin\.Call +\d+\.\d ms  \d+\.\d\dx serial`,
			`  pool\.Join +\d+\.\d ms  \d+\.\d\dx serial`,
			`  forkjoin\.Call, serial below fib\(20\) +\d+\.\d ms  \d+\.\d\dx serial`,
			`fib\(22\) = 17711`,
		}},
		{args: []string{"-n", "10", "-workers", "1", "-compare=false"}, lines: []string{
			`fib\(10\), workers 1, GOMAXPROCS \d+:`,
			`  forkjoin\.Call +\d+\.\d ms`,
			`  pool\.Join +\d+\.\d ms`,
			`  forkjoin\.Call, serial below fib\(20\) +\d+\.\d ms`,
			`fib\(10\) = 55`,
		}},
		{args: []string{"-n", "-1"}, status: 2, error: "-n -1: want 0 to 50"},
		{args: []string{"-workers", "0"}, status: 2, error: "-workers 0: want at least 1"},
		{args: []string{"extra"}, status: 2, error: `unexpected argument "extra"`},
		{args: []string{"-nosuchflag"}, status: 2, error: "flag provided but not defined"},
	} {
		var stdout, stderr bytes.Buffer
		status := run(tc.args, &stdout, &stderr)
		assert.Equal(t, tc.status, status, "%q: stderr %s", tc.args, &stderr)
		assert.Contains(t, stderr.String(), tc.error, "%q", tc.args)
		if tc.lines == nil {
			assert.Empty(t, stdout.String(), "%q", tc.args)
			continue
		}
		assert.Regexp(t, "^"+strings.Join(tc.lines, "\n")+"\n$", stdout.String(), "%q", tc.args)
	}
}
