package main

import (
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
