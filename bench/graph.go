package bench

import (
	"fmt"
	"math"
	"sync"
	"sync/atomic"

	"github.com/spindle-go/spindle/pool"
)

// Graph exploration: visit every node reachable from node 0 of a large
// random directed graph exactly once. Parallel explorers claim a node by
// flipping its visited flag (compare-and-swap), so the one that wins
// visits it and looks at its out-neighbours; the work appears as it is
// found, unevenly, which is what work stealing is for.

// Graph is a directed graph in compressed sparse row form: the
// out-neighbours of node v are Edges[Offsets[v]:Offsets[v+1]].
type Graph struct {
	Offsets []int32
	Edges   []int32
}

// Nodes returns the number of nodes.
func (g *Graph) Nodes() int { return len(g.Offsets) - 1 }

func (g *Graph) out(v int32) []int32 { return g.Edges[g.Offsets[v]:g.Offsets[v+1]] }

// NewGraph builds a random graph of nodes nodes from xorshift64 seeded
// with seed: every node has an out-degree drawn uniformly from 0 to
// 2*degree (mean degree), except hubs nodes (node 0 and hubs-1 others
// drawn at random, if hubs > 0) that have about sqrt(nodes) out-edges.
// Edge targets are uniform over all nodes; self-loops and repeated edges
// are kept. The same arguments give the same graph.
func NewGraph(nodes, degree, hubs int, seed uint64) *Graph {
	if nodes < 1 || degree < 0 || hubs < 0 {
		panic(fmt.Sprintf("bench.NewGraph(%d, %d, %d): want nodes >= 1, degree >= 0, hubs >= 0", nodes, degree, hubs))
	}
	if nodes >= math.MaxInt32 {
		panic(fmt.Sprintf("bench.NewGraph: %d nodes do not fit in int32", nodes))
	}
	r := newXorshift(seed)
	hubDegree := int32(math.Sqrt(float64(nodes)))
	isHub := make(map[int32]bool, hubs)
	if hubs > 0 {
		isHub[0] = true
		for len(isHub) < min(hubs, nodes) {
			isHub[int32(r.next()%uint64(nodes))] = true
		}
	}
	offsets := make([]int32, nodes+1)
	var total int64
	for v := range nodes {
		d := int32(r.next() % uint64(2*degree+1))
		if isHub[int32(v)] {
			d = hubDegree
		}
		offsets[v] = int32(total)
		total += int64(d)
		if total >= math.MaxInt32 {
			panic(fmt.Sprintf("bench.NewGraph: more than %d edges", math.MaxInt32))
		}
	}
	offsets[nodes] = int32(total)
	edges := make([]int32, total)
	for i := range edges {
		edges[i] = int32(r.next() % uint64(nodes))
	}
	return &Graph{Offsets: offsets, Edges: edges}
}

// GraphResult sums up an exploration: how many nodes were visited and a
// checksum of their numbers (the wrapping sum of a hash of each), which
// does not depend on the order of the visits.
type GraphResult struct {
	Nodes uint64
	Sum   uint64
}

// nodeHash is the finaliser of splitmix64.
func nodeHash(v int32) uint64 {
	z := uint64(v) + 0x9E3779B97F4A7C15
	z = (z ^ z>>30) * 0xBF58476D1CE4E5B9
	z = (z ^ z>>27) * 0x94D049BB133111EB
	return z ^ z>>31
}

// exploreSlot is one worker's share of a GraphResult, alone on its cache
// lines.
type exploreSlot struct {
	GraphResult
	_ [112]byte
}

// Explorer runs the exploration kernels on one graph, keeping their
// buffers across runs. Call Reset between runs; a run starts at node 0.
// Work is the busy work per visited node, in rounds of Spin (0: none, the
// exploration is then all memory traffic and task overhead).
type Explorer struct {
	G    *Graph
	Work int

	visited []atomic.Bool // claims of the parallel kernels
	seen    []bool        // claims of the serial kernel
	stack   []int32       // the serial kernel's stack
	slots   []exploreSlot // per worker or goroutine
	// visits, when set (CountVisits), counts the visits of every node.
	visits []atomic.Int32
}

// NewExplorer returns an explorer of g with work rounds of Spin per node.
func NewExplorer(g *Graph, work int) *Explorer {
	n := g.Nodes()
	return &Explorer{
		G: g, Work: work,
		visited: make([]atomic.Bool, n),
		seen:    make([]bool, n),
	}
}

// CountVisits makes the kernels count the visits of every node, for
// Visits; it costs an atomic add per visit.
func (e *Explorer) CountVisits() { e.visits = make([]atomic.Int32, e.G.Nodes()) }

// Visits returns how many times node v was visited since Reset (after
// CountVisits).
func (e *Explorer) Visits(v int) int32 { return e.visits[v].Load() }

// Visited reports whether the last parallel run claimed node v, and
// Seen whether the last serial run did.
func (e *Explorer) Visited(v int) bool { return e.visited[v].Load() }

// Seen reports whether the last serial run reached node v.
func (e *Explorer) Seen(v int) bool { return e.seen[v] }

// Reset clears the marks of the last run.
func (e *Explorer) Reset() {
	clear(e.visited)
	clear(e.seen)
	clear(e.visits)
}

// slotsFor returns n zeroed slots.
func (e *Explorer) slotsFor(n int) []exploreSlot {
	if len(e.slots) < n {
		e.slots = make([]exploreSlot, n)
	}
	s := e.slots[:n]
	clear(s)
	return s
}

func sumSlots(slots []exploreSlot) GraphResult {
	var r GraphResult
	for i := range slots {
		r.Nodes += slots[i].Nodes
		r.Sum += slots[i].Sum
	}
	return r
}

// visit is the work done on a visited node.
func (e *Explorer) visit(r *GraphResult, v int32) {
	r.Nodes++
	r.Sum += nodeHash(v)
	if e.Work > 0 {
		spinSink(Spin(e.Work, uint64(v)+1))
	}
	if e.visits != nil {
		e.visits[v].Add(1)
	}
}

// claim reports whether this caller is the one that marks u visited.
func (e *Explorer) claim(u int32) bool {
	return !e.visited[u].Load() && e.visited[u].CompareAndSwap(false, true)
}

// Serial explores depth first with a stack and plain (non-atomic) marks:
// the baseline, and the reference for the reachable set.
func (e *Explorer) Serial() GraphResult {
	var r GraphResult
	g, seen := e.G, e.seen
	stack := append(e.stack[:0], 0)
	seen[0] = true
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		e.visit(&r, v)
		for _, u := range g.out(v) {
			if !seen[u] {
				seen[u] = true
				stack = append(stack, u)
			}
		}
	}
	e.stack = stack
	return r
}

// Spawn explores on p with one Scope.Spawn per claimed node: the task of
// a node visits it and spawns a task for each neighbour it claims. Call it
// from outside p.
func (e *Explorer) Spawn(p *pool.Pool) GraphResult {
	slots := e.slotsFor(p.MaxWorkers())
	p.Scope(func(s *pool.Scope) {
		e.visited[0].Store(true)
		e.spawnNode(s, slots, 0)
	})
	return sumSlots(slots)
}

func (e *Explorer) spawnNode(s *pool.Scope, slots []exploreSlot, v int32) {
	e.visit(&slots[pool.WorkerIndex()].GraphResult, v)
	for _, u := range e.G.out(v) {
		if e.claim(u) {
			s.Spawn(func(s *pool.Scope) { e.spawnNode(s, slots, u) })
		}
	}
}

// SpawnMany explores on p with one Scope.SpawnMany per visited node that
// claims neighbours: the task of a node visits it, claims what it can of
// its neighbours, then spawns their tasks as one bulk spawn. Call it from
// outside p.
func (e *Explorer) SpawnMany(p *pool.Pool) GraphResult {
	slots := e.slotsFor(p.MaxWorkers())
	p.Scope(func(s *pool.Scope) {
		e.visited[0].Store(true)
		e.manyNode(s, slots, 0)
	})
	return sumSlots(slots)
}

func (e *Explorer) manyNode(s *pool.Scope, slots []exploreSlot, v int32) {
	e.visit(&slots[pool.WorkerIndex()].GraphResult, v)
	out := e.G.out(v)
	var claimed []int32
	for i, u := range out {
		if e.claim(u) {
			if claimed == nil {
				claimed = make([]int32, 0, len(out)-i)
			}
			claimed = append(claimed, u)
		}
	}
	if len(claimed) > 0 {
		s.SpawnMany(len(claimed), func(s *pool.Scope, i int) { e.manyNode(s, slots, claimed[i]) })
	}
}

// localShareEvery is how many visits a Local task makes between offers of
// half of its stack.
const localShareEvery = 64

// Local explores on p the way Goroutines does, with the pool's stealing in
// place of the shared channel: a task works depth first on a stack of its
// own and, every localShareEvery visits, hands the older half of its stack
// (the nodes nearest the root, with the most left to explore below them)
// to a new task (Scope.Spawn), which an idle worker steals. A spawn costs
// a few allocations per localShareEvery nodes instead of per node. Call it
// from outside p.
func (e *Explorer) Local(p *pool.Pool) GraphResult {
	slots := e.slotsFor(p.MaxWorkers())
	p.Scope(func(s *pool.Scope) {
		e.visited[0].Store(true)
		e.localTask(s, slots, []int32{0})
	})
	return sumSlots(slots)
}

func (e *Explorer) localTask(s *pool.Scope, slots []exploreSlot, stack []int32) {
	res := &slots[pool.WorkerIndex()].GraphResult // a task never changes worker
	for n := 1; len(stack) > 0; n++ {
		if n%localShareEvery == 0 && len(stack) > 1 {
			half := len(stack) / 2
			give := append([]int32(nil), stack[:half]...)
			stack = append(stack[:0], stack[half:]...)
			s.Spawn(func(s *pool.Scope) { e.localTask(s, slots, give) })
		}
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		e.visit(res, v)
		for _, u := range e.G.out(v) {
			if e.claim(u) {
				stack = append(stack, u)
			}
		}
	}
}

// Goroutines explores with workers goroutines (run it with GOMAXPROCS set
// to workers), the plain Go way: each keeps a stack of the nodes it
// claimed and works depth first; while fewer than workers nodes wait in a
// shared channel, it hands nodes from its stack to the channel, where
// idle goroutines wait. An atomic count of claimed nodes not yet visited
// tells when the exploration is over; a sync.WaitGroup waits for the
// goroutines.
func (e *Explorer) Goroutines(workers int) GraphResult {
	if workers < 1 {
		panic(fmt.Sprintf("bench.Explorer.Goroutines(%d): want at least one goroutine", workers))
	}
	slots := e.slotsFor(workers)
	shared := make(chan int32, 64*workers)
	done := make(chan struct{})
	var pending atomic.Int64 // claimed, not yet visited
	pending.Store(1)
	e.visited[0].Store(true)
	shared <- 0
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			res := &slots[w].GraphResult
			var stack []int32
			for {
				var v int32
				if n := len(stack); n > 0 {
					v = stack[n-1]
					stack = stack[:n-1]
				} else {
					select {
					case v = <-shared:
					case <-done:
						return
					}
				}
				e.visit(res, v)
				before := len(stack)
				for _, u := range e.G.out(v) {
					if e.claim(u) {
						stack = append(stack, u)
					}
				}
				// Count the new nodes (and v done) before anyone else can
				// see them, so that pending cannot reach 0 early.
				if pending.Add(int64(len(stack)-before-1)) == 0 {
					close(done)
					return
				}
			share:
				for len(stack) > 1 && len(shared) < workers {
					select {
					case shared <- stack[len(stack)-1]:
						stack = stack[:len(stack)-1]
					default:
						break share
					}
				}
			}
		})
	}
	wg.Wait()
	return sumSlots(slots)
}
