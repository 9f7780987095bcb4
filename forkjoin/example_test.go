package forkjoin_test

import (
	"cmp"
	"fmt"
	"math"
	"strings"
	"sync/atomic"

	"github.com/spindle-go/spindle/forkjoin"
)

// fib forks at every level; each fork copies fib and n-2 into the
// worker's frame instead of allocating a closure.
func fib(n int) int {
	if n < 2 {
		return n
	}
	a, b := forkjoin.Call(fib, n-1, n-2)
	return a + b
}

func ExampleCall() {
	fmt.Println(fib(20))
	// Output: 6765
}

// negate negates a slice in place, halving it down to pieces of 4.
func negate(s []int) {
	if len(s) <= 4 {
		for i := range s {
			s[i] = -s[i]
		}
		return
	}
	forkjoin.Do(negate, s[:len(s)/2], s[len(s)/2:])
}

func ExampleDo() {
	s := []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	negate(s)
	fmt.Println(s)
	// Output: [-1 -2 -3 -4 -5 -6 -7 -8 -9 -10]
}

func ExampleJoin() {
	text := "the quick brown fox jumps over the lazy dog"
	words, upper := forkjoin.Join(
		func() int { return len(strings.Fields(text)) },
		func() string { return strings.ToUpper(text) },
	)
	fmt.Println(words, upper)
	// Output: 9 THE QUICK BROWN FOX JUMPS OVER THE LAZY DOG
}

func ExampleFor() {
	squares := make([]int, 10)
	var chunks atomic.Int32
	forkjoin.For(0, len(squares), 3, func(lo, hi int) {
		chunks.Add(1)
		for i := lo; i < hi; i++ {
			squares[i] = i * i
		}
	})
	fmt.Println(squares, chunks.Load())
	// Output: [0 1 4 9 16 25 36 49 64 81] 4
}

func ExampleMap() {
	lengths := forkjoin.Map([]string{"fork", "join", "steal", "", "work"}, func(s string) int {
		return len(s)
	})
	fmt.Println(lengths)
	// Output: [4 4 5 0 4]
}

func ExampleReduce() {
	// Concatenation is associative but not commutative: Reduce keeps the
	// order of the elements.
	parts := strings.Split("s-p-i-n-d-l-e", "-")
	fmt.Println(forkjoin.Reduce(parts, "", func(a, b string) string { return a + b }))
	fmt.Println(forkjoin.Reduce([]int{}, 0, func(a, b int) int { return a + b }))
	// Output:
	// spindle
	// 0
}

func ExampleSort() {
	s := []float64{2.5, math.Inf(1), -1, math.NaN(), 0, math.Inf(-1)}
	forkjoin.Sort(s) // NaNs first, as with slices.Sort
	fmt.Println(s)
	// Output: [NaN -Inf -1 0 2.5 +Inf]
}

func ExampleSortFunc() {
	type task struct {
		name string
		cost int
	}
	tasks := []task{{"parse", 3}, {"sort", 9}, {"scan", 1}, {"join", 5}}
	// Most expensive first.
	forkjoin.SortFunc(tasks, func(a, b task) int { return cmp.Compare(b.cost, a.cost) })
	fmt.Println(tasks)
	// Output: [{sort 9} {join 5} {parse 3} {scan 1}]
}
