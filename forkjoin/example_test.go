package forkjoin_test

import (
	"cmp"
	"fmt"
	"log"
	"math"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/spindle-go/spindle/forkjoin"
	"github.com/spindle-go/spindle/pool"
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

// exDir is a directory of a tree that a walk visits with a task per
// directory.
type exDir struct {
	name  string
	files int
	subs  []*exDir
}

// Spawn walks a tree with a task per node: each task receives its node as
// an argument, so the walk allocates nothing per task once the workers
// have task records to reuse. The function is made once, before the walk.
func ExampleSpawn() {
	root := &exDir{name: "/", files: 2, subs: []*exDir{
		{name: "a", files: 3, subs: []*exDir{{name: "a/x", files: 4}}},
		{name: "b", files: 5},
	}}
	var files atomic.Int64
	var visit func(s *pool.Scope, d *exDir)
	visit = func(s *pool.Scope, d *exDir) {
		files.Add(int64(d.files))
		for _, sub := range d.subs {
			forkjoin.Spawn(s, visit, sub)
		}
	}
	pool.Default().Scope(func(s *pool.Scope) { visit(s, root) })
	fmt.Println(files.Load(), "files")
	// Output: 14 files
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

// Everything runs on pool.Current(): inside p.Run the forks go to p's
// workers; from any other goroutine, to pool.Default().
func Example() {
	p, err := pool.New(pool.WithWorkers(2))
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close()

	var f int
	var squares []int
	p.Run(func() {
		f = fib(25)
		squares = forkjoin.Map([]int{1, 2, 3, 4}, func(x int) int { return x * x })
	})
	fmt.Println(f, squares)
	// Output: 75025 [1 4 9 16]
}

// A panic in any function comes back to the caller as a
// *pool.PanicError, once every function the call started has finished.
func Example_panics() {
	defer func() {
		pe := recover().(*pool.PanicError)
		fmt.Println("recovered:", pe.Value)
	}()
	forkjoin.Map([]int{4, 2, 0, 1}, func(x int) int {
		if x == 0 {
			panic("division by zero")
		}
		return 12 / x
	})
	// Output: recovered: division by zero
}

// exNode is a binary tree node for the examples.
type exNode struct{ left, right *exNode }

// exBuild returns a complete binary tree of the given depth.
func exBuild(depth int) *exNode {
	if depth == 0 {
		return nil
	}
	return &exNode{exBuild(depth - 1), exBuild(depth - 1)}
}

// exCount counts the nodes of a tree, forking at every node: Call passes
// the two subtrees to exCount without building a closure.
func exCount(n *exNode) int {
	if n == nil {
		return 0
	}
	l, r := forkjoin.Call(exCount, n.left, n.right)
	return 1 + l + r
}

func ExampleCall_tree() {
	fmt.Println(exCount(exBuild(12)))
	// Output: 4095
}

func ExampleFor_defaultGrain() {
	// A grain <= 0 lets For choose: about 8 chunks per worker. The chunks
	// then depend on the pool's size, so the body must not: here each
	// chunk adds its own sum.
	var total atomic.Int64
	forkjoin.For(0, 1_000_000, 0, func(lo, hi int) {
		s := 0
		for i := lo; i < hi; i++ {
			s += i
		}
		total.Add(int64(s))
	})
	fmt.Println(total.Load())
	// Output: 499999500000
}

func ExampleReduce_max() {
	temps := []float64{12.5, 17.25, 9, 21.75, 15}
	// max is associative; the identity is the result for an empty input.
	fmt.Println(forkjoin.Reduce(temps, math.Inf(-1), math.Max))
	fmt.Println(forkjoin.Reduce(nil, math.Inf(-1), math.Max))
	// Output:
	// 21.75
	// -Inf
}

func ExampleFold() {
	words := strings.Fields("the cat saw the dog and the dog saw the cat run")
	// Each piece counts its words into a map of its own; merge adds the
	// counts of the pieces that follow.
	counts := forkjoin.Fold(0, len(words), 2,
		func() map[string]int { return map[string]int{} },
		func(acc map[string]int, lo, hi int) map[string]int {
			for _, w := range words[lo:hi] {
				acc[w]++
			}
			return acc
		},
		func(a, b map[string]int) map[string]int {
			for w, n := range b {
				a[w] += n
			}
			return a
		})
	fmt.Println(counts)
	// Output: map[and:1 cat:2 dog:2 run:1 saw:2 the:4]
}

func ExampleFold_order() {
	// Pieces are merged in order, the left one first, so a result that
	// depends on the order (here the indexes in a string) is the serial one.
	s := forkjoin.Fold(0, 20, 3,
		func() string { return "" },
		func(acc string, lo, hi int) string {
			for i := lo; i < hi; i++ {
				acc += fmt.Sprint(i % 10)
			}
			return acc
		},
		func(a, b string) string { return a + b })
	fmt.Println(s)
	// Output: 01234567890123456789
}

func ExampleMapSeq() {
	words := slices.Values([]string{"fork", "join", "steal", "spawn"})
	// f runs in parallel; the results come out in the input's order.
	fmt.Println(slices.Collect(forkjoin.MapSeq(words, func(s string) int { return len(s) })))
	// Breaking out stops the pulling; calls already started finish first.
	for sq := range forkjoin.MapSeq(slices.Values([]int{1, 2, 3, 4, 5}), func(x int) int { return x * x }) {
		if sq > 4 {
			break
		}
		fmt.Println(sq)
	}
	// Output:
	// [4 4 5 5]
	// 1
	// 4
}
