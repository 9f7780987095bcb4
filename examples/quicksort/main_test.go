package main

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/spindle-go/spindle/examples/internal/cmdtest"
	"github.com/spindle-go/spindle/pool"
)

// inputs returns inputs of length n: random, with few distinct values,
// sorted, reversed and all equal.
func inputs(n int) map[string][]int {
	r := rand.New(rand.NewPCG(uint64(n), 7))
	in := map[string][]int{}
	for _, name := range []string{"random", "few", "sorted", "reversed", "equal"} {
		s := make([]int, n)
		for i := range s {
			switch name {
			case "random":
				s[i] = r.IntN(1_000_000) - 500_000
			case "few":
				s[i] = r.IntN(3)
			case "sorted":
				s[i] = i
			case "reversed":
				s[i] = n - i
			case "equal":
				s[i] = 42
			}
		}
		in[name] = s
	}
	return in
}

func TestQuicksort(t *testing.T) {
	p, err := pool.New(pool.WithWorkers(2))
	require.NoError(t, err)
	defer p.Close()

	for _, n := range []int{0, 1, 2, 3, cutoff - 1, cutoff, cutoff + 1, 50_000} {
		for name, s := range inputs(n) {
			want := slices.Clone(s)
			slices.Sort(want)
			onPool, offPool := slices.Clone(s), slices.Clone(s)
			p.Run(func() { quicksort(onPool) })
			quicksort(offPool) // on pool.Default()
			assert.Equal(t, want, onPool, "n=%d %s, on the pool", n, name)
			assert.Equal(t, want, offPool, "n=%d %s, off the pool", n, name)
		}
	}
}

func TestPartition(t *testing.T) {
	for _, n := range []int{2, 3, 4, 5, 10, 1000} {
		for name, s := range inputs(n) {
			t.Run(fmt.Sprintf("n=%d/%s", n, name), func(t *testing.T) {
				want := slices.Sorted(slices.Values(s))
				k := partition(s)
				require.True(t, 0 < k && k < n, "partition returned %d", k)
				assert.LessOrEqual(t, slices.Max(s[:k]), slices.Min(s[k:]))
				assert.Equal(t, want, slices.Sorted(slices.Values(s)), "elements changed")
			})
		}
	}
}

func TestQuicksortCommand(t *testing.T) {
	const row = ` +\d+\.\d ms`
	cmdtest.Run(t, run, []cmdtest.Case{
		{Args: []string{"-n", "20000", "-workers", "2"}, Lines: []string{
			`20000 random ints, workers 2, GOMAXPROCS \d+:`,
			`  slices\.Sort \(serial\)` + row,
			`  quicksort \(forkjoin\.Do\)` + row + `  \d+\.\d\dx serial`,
			`  forkjoin\.Sort` + row + `  \d+\.\d\dx serial`,
		}},
		{Args: []string{"-n", "0", "-workers", "1", "-compare=false"}, Lines: []string{
			`0 random ints, workers 1, GOMAXPROCS \d+:`,
			`  quicksort \(forkjoin\.Do\)` + row,
			`  forkjoin\.Sort` + row,
		}},
		{Args: []string{"-n", "-1"}, Status: 2, Error: "-n -1: want at least 0"},
		{Args: []string{"-workers", "0"}, Status: 2, Error: "-workers 0: want at least 1"},
		{Args: []string{"extra"}, Status: 2, Error: `unexpected argument "extra"`},
		{Args: []string{"-nosuchflag"}, Status: 2, Error: "flag provided but not defined"},
	})
}
