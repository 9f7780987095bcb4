package bench

import "github.com/spindle-go/spindle/forkjoin"

// The tree-sum kernels add up the values of a balanced binary tree of
// pointer nodes with a fork per node and no cutoff: Spice's benchmark, the
// peers' treesum workload. The work per node is a load and two adds, so
// what they measure is the fork's cost where the data is scattered in
// memory, as in any tree walk.

// TreeNode is a node of the tree-sum tree.
type TreeNode struct {
	Val         int64
	Left, Right *TreeNode
}

// TreeBuild returns a balanced tree of 2^depth-1 nodes whose values are 1,
// 2, ... in preorder, and the sum of the values.
func TreeBuild(depth int) (root *TreeNode, sum int64) {
	var next int64
	root = treeBuild(depth, &next)
	return root, next * (next + 1) / 2
}

func treeBuild(depth int, next *int64) *TreeNode {
	if depth <= 0 {
		return nil
	}
	*next++
	n := &TreeNode{Val: *next}
	n.Left = treeBuild(depth-1, next)
	n.Right = treeBuild(depth-1, next)
	return n
}

// TreeSumSerial is the baseline: the same walk without forks.
func TreeSumSerial(n *TreeNode) int64 {
	if n == nil {
		return 0
	}
	return n.Val + TreeSumSerial(n.Left) + TreeSumSerial(n.Right)
}

// TreeSumCall forks the two subtrees with forkjoin.Call at every node.
func TreeSumCall(n *TreeNode) int64 {
	if n == nil {
		return 0
	}
	a, b := forkjoin.Call(TreeSumCall, n.Left, n.Right)
	return n.Val + a + b
}
