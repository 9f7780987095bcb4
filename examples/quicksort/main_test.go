package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
	for _, tc := range []struct {
		args   []string
		status int
		lines  []string // stdout, a regular expression per line; none: empty
		error  string
	}{
		{args: []string{"-n", "20000", "-workers", "2"}, lines: []string{
			`20000 random ints, workers 2, GOMAXPROCS \d+:`,
			`  slices\.Sort \(serial\)` + row,
			`  quicksort \(forkjoin\.Do\)` + row + `  \d+\.\d\dx serial`,
			`  forkjoin\.Sort` + row + `  \d+\.\d\dx serial`,
		}},
		{args: []string{"-n", "0", "-workers", "1", "-compare=false"}, lines: []string{
			`0 random ints, workers 1, GOMAXPROCS \d+:`,
			`  quicksort \(forkjoin\.Do\)` + row,
			`  forkjoin\.Sort` + row,
		}},
		{args: []string{"-n", "-1"}, status: 2, error: "-n -1: want at least 0"},
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
