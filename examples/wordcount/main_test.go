package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/spindle-go/spindle/pool"
)

// TestCountFromCutsAnywhere: however the text is cut, counting each piece
// into the same map counts every word once.
func TestCountFromCutsAnywhere(t *testing.T) {
	text := []byte("Fold folds, folds; and folds-again. x yy zzz\nFold")
	want := countSerial(text)
	assert.Equal(t, map[string]int{"Fold": 2, "folds": 3, "and": 1, "again": 1, "x": 1, "yy": 1, "zzz": 1}, want)
	for cut := range len(text) + 1 {
		for cut2 := cut; cut2 <= len(text); cut2 += 3 {
			got := make(map[string]int)
			countFrom(got, text, 0, cut)
			countFrom(got, text, cut, cut2)
			countFrom(got, text, cut2, len(text))
			require.Equal(t, want, got, "cuts at %d and %d", cut, cut2)
		}
	}
}

func TestCountParallelMatchesSerial(t *testing.T) {
	text := generate(5<<20, 50_000, 7) // about 20 pieces
	want := countSerial(text)
	p, err := pool.New(pool.WithWorkers(2))
	require.NoError(t, err)
	defer p.Close()
	for range 3 {
		var got map[string]int
		p.Run(func() { got = countParallel(text) })
		require.Equal(t, want, got)
	}
	assert.Equal(t, want, countParallel(text), "off-pool")
	for _, parts := range []int{1, 2, 3, 7} {
		assert.Equal(t, want, countThreads(text, parts), "the floor in %d parts", parts)
	}
}

func TestGenerate(t *testing.T) {
	text := generate(1<<16, 1000, 3)
	assert.GreaterOrEqual(t, len(text), 1<<16)
	assert.Equal(t, text, generate(1<<16, 1000, 3), "same seed, same text")
	counts := countSerial(text)
	assert.Greater(t, len(counts), 100, "distinct words")
}
