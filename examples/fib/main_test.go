package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/spindle-go/spindle/examples/internal/cmdtest"
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
	cmdtest.Run(t, run, []cmdtest.Case{
		{Args: []string{"-n", "22", "-workers", "2"}, Lines: []string{
			`fib\(22\), workers 2, GOMAXPROCS \d+:`,
			`  serial +\d+\.\d ms`,
			`  forkjoin\.Call +\d+\.\d ms  \d+\.\d\dx serial`,
			`  pool\.Join +\d+\.\d ms  \d+\.\d\dx serial`,
			`  forkjoin\.Call, serial below fib\(20\) +\d+\.\d ms  \d+\.\d\dx serial`,
			`fib\(22\) = 17711`,
		}},
		{Args: []string{"-n", "10", "-workers", "1", "-compare=false"}, Lines: []string{
			`fib\(10\), workers 1, GOMAXPROCS \d+:`,
			`  forkjoin\.Call +\d+\.\d ms`,
			`  pool\.Join +\d+\.\d ms`,
			`  forkjoin\.Call, serial below fib\(20\) +\d+\.\d ms`,
			`fib\(10\) = 55`,
		}},
		{Args: []string{"-n", "-1"}, Status: 2, Error: "-n -1: want 0 to 50"},
		{Args: []string{"-workers", "0"}, Status: 2, Error: "-workers 0: want at least 1"},
		{Args: []string{"extra"}, Status: 2, Error: `unexpected argument "extra"`},
		{Args: []string{"-nosuchflag"}, Status: 2, Error: "flag provided but not defined"},
	})
}
