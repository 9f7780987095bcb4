package bench

import (
	"sync"

	"github.com/spindle-go/spindle/forkjoin"
)

// Binary trees (the Benchmarks Game's binarytrees, its parallel Go
// program's shape): for every depth d from 4 to maxDepth in steps of 2,
// build and walk 2^(maxDepth-d+4) trees of depth d, a job per depth. Every
// job allocates all the time, so it measures what the garbage collector
// costs a pool's workers (locked to their threads or not) against
// goroutines.

// btNode is a node of a binary tree.
type btNode struct{ left, right *btNode }

func btBuild(depth int) *btNode {
	if depth <= 0 {
		return &btNode{}
	}
	return &btNode{btBuild(depth - 1), btBuild(depth - 1)}
}

func (n *btNode) check() int {
	if n.left == nil {
		return 1
	}
	return 1 + n.left.check() + n.right.check()
}

// BinaryTreesDepths returns the depths of the jobs for maxDepth.
func BinaryTreesDepths(maxDepth int) []int {
	var ds []int
	for d := 4; d <= maxDepth; d += 2 {
		ds = append(ds, d)
	}
	return ds
}

// binaryTreesJob builds and checks the trees of one depth and returns the
// sum of their checks.
func binaryTreesJob(maxDepth, d int) int {
	iterations := 1 << (maxDepth - d + 4)
	sum := 0
	for range iterations {
		sum += btBuild(d).check()
	}
	return sum
}

// BinaryTreesMap runs the jobs with forkjoin.Map on the current pool and
// returns the sum of every check.
func BinaryTreesMap(maxDepth int) int {
	sums := forkjoin.Map(BinaryTreesDepths(maxDepth), func(d int) int { return binaryTreesJob(maxDepth, d) })
	total := 0
	for _, s := range sums {
		total += s
	}
	return total
}

// BinaryTreesGoroutines runs the jobs with a goroutine each.
func BinaryTreesGoroutines(maxDepth int) int {
	ds := BinaryTreesDepths(maxDepth)
	sums := make([]int, len(ds))
	var wg sync.WaitGroup
	for i, d := range ds {
		wg.Go(func() { sums[i] = binaryTreesJob(maxDepth, d) })
	}
	wg.Wait()
	total := 0
	for _, s := range sums {
		total += s
	}
	return total
}
