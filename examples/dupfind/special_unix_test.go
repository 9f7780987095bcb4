//go:build unix

package main

import (
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPipesAreNotOpened: opening a named pipe blocks until a writer comes,
// so a search that opened one would never return.
func TestPipesAreNotOpened(t *testing.T) {
	tr := newTree(t)
	tr.write("a", "same size")
	tr.write("b", "same size")
	require.NoError(t, syscall.Mkfifo(tr.path("pipe"), 0o644))

	r := findParallel(newPool(t, 2), osFS{}, tr.root)
	assert.Equal(t, 1, r.Special)
	assert.Equal(t, 2, r.Files)
	assert.Equal(t, [][]string{{tr.path("a"), tr.path("b")}}, groupPaths(r))
	assert.Empty(t, r.Problems)
}
