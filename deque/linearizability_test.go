package deque

import (
	"fmt"
	"hash/maphash"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// vOp names an operation in a recorded history: the Deque ones and
// Bulk's batch operations.
type vOp int

const (
	vPush vOp = iota
	vPop
	vSteal
	vPushBatch
	vStealBatch    // StealBatch into a buffer of k
	vStealFraction // StealFraction(frac) into a buffer of k
)

// vIn is an operation's input.
type vIn struct {
	op   vOp
	val  int     // vPush
	vals []int   // vPushBatch
	k    int     // buffer size of vStealBatch, vStealFraction
	frac float64 // vStealFraction
}

// vOut is an operation's result: for vPush whether it succeeded; for vPop
// and vSteal the value (0 for none); for the batch steals the values; for
// the steals the StealResult.
type vOut struct {
	ok   bool
	val  int
	vals []int
	res  StealResult
}

var specSeed = maphash.MakeSeed()

// specModel turns a sequential spec into a porcupine model: each step runs
// the operation on a copy of the state and accepts it if the spec produces
// the recorded result. Retry is accepted anywhere and changes nothing:
// that is weaker than the real guarantee (Retry needs a concurrent
// winner) but is all a linearizability check of one deque can demand.
func specModel(initial func() spec) porcupine.Model {
	return porcupine.Model{
		Init: func() any { return initial() },
		Step: func(state, input, output any) (bool, any) {
			in, out := input.(vIn), output.(vOut)
			if out.res == Retry && (in.op == vSteal || in.op == vStealBatch || in.op == vStealFraction) {
				return true, state
			}
			s := state.(spec).clone()
			switch in.op {
			case vPush:
				return s.push(in.val) == out.ok, s
			case vPop:
				return s.pop() == out.val, s
			case vSteal:
				v := s.steal()
				return v == out.val && (v == 0) == (out.res == Empty), s
			case vPushBatch:
				s.(*sliceSpec).pushBatch(in.vals)
				return true, s
			case vStealBatch, vStealFraction:
				ss := s.(*sliceSpec)
				frac := 0.0
				if in.op == vStealFraction {
					frac = in.frac
				}
				k := batchCount(ss.len(), in.k, frac)
				if k == 0 {
					return out.res == Empty && len(out.vals) == 0, s
				}
				return out.res == Success && slices.Equal(ss.take(k), out.vals), s
			}
			return false, state
		},
		Equal: func(a, b any) bool { return a.(spec).key() == b.(spec).key() },
		Hash: func(state any) uint64 {
			return maphash.String(specSeed, state.(spec).key())
		},
		DescribeOperation: func(input, output any) string {
			in, out := input.(vIn), output.(vOut)
			switch in.op {
			case vPush:
				return fmt.Sprintf("TryPush(%d) -> %v", in.val, out.ok)
			case vPop:
				return fmt.Sprintf("Pop() -> %d", out.val)
			case vSteal:
				return fmt.Sprintf("Steal() -> (%d, %v)", out.val, out.res)
			case vPushBatch:
				return fmt.Sprintf("PushBatch(%v)", in.vals)
			case vStealBatch:
				return fmt.Sprintf("StealBatch(k=%d) -> (%v, %v)", in.k, out.vals, out.res)
			default:
				return fmt.Sprintf("StealFraction(%g, k=%d) -> (%v, %v)", in.frac, in.k, out.vals, out.res)
			}
		},
		DescribeState: func(state any) string { return state.(spec).key() },
	}
}

// linVariant is a variant as the linearizability test builds it: small
// enough that histories cross its boundaries.
type linVariant struct {
	name  string
	make  func(rng *rand.Rand) (Deque[int], spec)
	batch bool // Bulk: plan batch operations too
}

var linVariants = []linVariant{
	{name: "ChaseLev", make: func(rng *rand.Rand) (Deque[int], spec) {
		return NewChaseLev[int](1 + rng.IntN(3)), &sliceSpec{}
	}},
	{name: "ChaseLevRelease", make: func(rng *rand.Rand) (Deque[int], spec) {
		return releaseChaseLev[int](1 + rng.IntN(3)), &sliceSpec{}
	}},
	{name: "ABP", make: func(rng *rand.Rand) (Deque[int], spec) {
		c := 4 + rng.IntN(8) // small: histories fill it and reset it
		return NewABP[int](c), &abpSpec{capacity: c}
	}},
	{name: "BWoS", make: func(rng *rand.Rand) (Deque[int], spec) {
		blocks, size := 2+rng.IntN(3), 1+rng.IntN(3)
		return NewBWoS[int](blocks, size), newBWoSSpec(blocks, size)
	}},
	{name: "Locked", make: func(rng *rand.Rand) (Deque[int], spec) {
		return NewLocked[int](1 + rng.IntN(3)), &sliceSpec{}
	}},
	{name: "Bulk", batch: true, make: func(rng *rand.Rand) (Deque[int], spec) {
		return NewBulk[int](1 + rng.IntN(4)), &sliceSpec{}
	}},
}

// linClock orders call and return events. Each event reads it with an
// atomic increment, so if one operation's return tick is below another's
// call tick, the first really finished before the second started (the
// increments are totally ordered and each sits on the right side of its
// operation in program order). That is exactly the real-time order
// porcupine needs, finer than a wall clock and immune to clock skew.
type linClock struct{ n atomic.Int64 }

func (c *linClock) tick() int64 { return c.n.Add(1) }

// spin burns a little time between operations to vary interleavings.
func spin(n int) {
	for i := 0; i < n; i++ {
		spinSink.Add(0)
	}
}

var spinSink atomic.Int64

// pause picks a spin length: usually short, so that operations on the two
// cores are dense enough to overlap, sometimes long enough to let one side
// run ahead.
func pause(rng *rand.Rand) int {
	if rng.IntN(6) == 0 {
		return rng.IntN(400)
	}
	return rng.IntN(16)
}

// recordHistory runs one owner and some thieves concurrently on d and
// returns the history of what they did. rng decides the plan up front, so
// the goroutines only execute it: the owner pushes a few items first so
// thieves find work, then mixes pushes (batches too, with batch) and
// pops.
func recordHistory(rng *rand.Rand, d Deque[int], thieves int, batch bool) []porcupine.Operation {
	var clock linClock
	// wait is a busy spin before the operation, yield a Gosched before it:
	// the first skews the two running goroutines against each other, the
	// second lets the goroutines that have no P (2 cores, up to 4 clients)
	// interleave with them.
	type planned struct {
		in    vIn
		wait  int
		yield bool
	}
	bulk, _ := d.(*Bulk[int])
	nextVal := 1
	ownerPlan := make([]planned, 14+rng.IntN(12))
	for i := range ownerPlan {
		p := planned{wait: pause(rng), yield: rng.IntN(10) == 0}
		switch r := rng.IntN(100); {
		case batch && r < 15:
			p.in = vIn{op: vPushBatch}
			for range 1 + rng.IntN(5) {
				p.in.vals = append(p.in.vals, nextVal)
				nextVal++
			}
		case i < 3 || r < 60:
			p.in = vIn{op: vPush, val: nextVal}
			nextVal++
		default:
			p.in = vIn{op: vPop}
		}
		ownerPlan[i] = p
	}
	thiefPlans := make([][]planned, thieves)
	for w := range thiefPlans {
		thiefPlans[w] = make([]planned, 3+rng.IntN(6))
		for i := range thiefPlans[w] {
			p := planned{in: vIn{op: vSteal}, wait: pause(rng), yield: rng.IntN(10) == 0}
			if batch {
				switch rng.IntN(3) {
				case 1:
					p.in = vIn{op: vStealBatch, k: 1 + rng.IntN(4)}
				case 2:
					p.in = vIn{op: vStealFraction, k: 1 + rng.IntN(6), frac: []float64{0.1, 0.34, 0.5, 0.6, 1}[rng.IntN(5)]}
				}
			}
			thiefPlans[w][i] = p
		}
	}

	logs := make([][]porcupine.Operation, 1+thieves)
	var ready, done sync.WaitGroup
	var start atomic.Bool
	run := func(client int, plan []planned) {
		defer done.Done()
		ops := make([]porcupine.Operation, 0, len(plan))
		ready.Done()
		for !start.Load() {
			runtime.Gosched()
		}
		for _, p := range plan {
			if p.yield {
				runtime.Gosched()
			}
			spin(p.wait)
			var out vOut
			var buf []*int
			var items []*int
			switch p.in.op { // set up outside the call/return window
			case vPush:
				items = []*int{new(p.in.val)}
			case vPushBatch:
				for _, v := range p.in.vals {
					items = append(items, new(v))
				}
			case vStealBatch, vStealFraction:
				buf = make([]*int, p.in.k)
			}
			call := clock.tick()
			switch p.in.op {
			case vPush:
				out.ok = d.TryPush(items[0])
			case vPop:
				out.val = deref0(d.Pop())
			case vSteal:
				v, res := d.Steal()
				out.val, out.res = deref0(v), res
			case vPushBatch:
				bulk.PushBatch(items)
			case vStealBatch, vStealFraction:
				var n int
				if p.in.op == vStealBatch {
					n, out.res = bulk.StealBatch(buf)
				} else {
					n, out.res = bulk.StealFraction(p.in.frac, buf)
				}
				for _, v := range buf[:n] {
					out.vals = append(out.vals, deref0(v))
				}
			}
			ret := clock.tick()
			ops = append(ops, porcupine.Operation{ClientId: client, Input: p.in, Call: call, Output: out, Return: ret})
		}
		logs[client] = ops
	}
	ready.Add(1 + thieves)
	done.Add(1 + thieves)
	go run(0, ownerPlan)
	for w, plan := range thiefPlans {
		go run(1+w, plan)
	}
	ready.Wait()
	start.Store(true)
	done.Wait()

	var history []porcupine.Operation
	for _, l := range logs {
		history = append(history, l...)
	}
	return history
}

// TestLinearizable records many short concurrent histories on every
// variant, with sizes small enough that they fill up, wrap, cross blocks
// and segments, and checks each with porcupine against the variant's
// sequential spec: the exact one (BWoS's blocks, ABP's full and reset),
// not a looser one. Then it corrupts a recorded pop, which porcupine must
// reject, so that an Ok means something.
func TestLinearizable(t *testing.T) {
	needTwoPs(t)
	// Each history takes well under a millisecond (a few under the race
	// detector) and samples few real races, so take many.
	histories := 3000
	switch {
	case testing.Short():
		histories = 100
	case raceEnabled:
		histories = 1500
	}
	// An owner operation overlaps a thief's only while both goroutines are
	// on a CPU at once, which on a loaded machine (two cores shared with
	// other processes) is rare: with two Ps, 3000 histories gave anything
	// from 0 to 2000 overlapping owner operations per variant, depending
	// on the load, and a variant with none failed the check at the end.
	// So while none has overlapped, record and check further rounds of
	// histories, for up to moreRoundsFor.
	const moreRoundsFor = 20 * time.Second
	for _, v := range linVariants {
		t.Run(v.name, func(t *testing.T) {
			seed := rand.Uint64()
			t.Logf("seed %d", seed)
			rng := rand.New(rand.NewPCG(seed, 0x11ea))
			overlapping, retries, fulls, checked := 0, 0, 0, 0
			corrupted := false
			deadline := time.Now().Add(moreRoundsFor)
			for round := 0; round == 0 || overlapping == 0 && time.Now().Before(deadline); round++ {
				recorded := make([][]porcupine.Operation, histories)
				models := make([]porcupine.Model, histories)
				runWithWatchdog(t, watchdogLimit, func() {
					for i := range recorded {
						d, s := v.make(rng)
						models[i] = specModel(func() spec { return s.clone() })
						recorded[i] = recordHistory(rng, d, 2+i%2, v.batch)
					}
				})
				for i, h := range recorded {
					require.Equal(t, porcupine.Ok, checkHistory(t, models[i], checked+i, h), "history %d", checked+i)
					if !corrupted {
						corrupted = rejectsCorruptPop(t, models[i], h)
					}
					overlapping += countOverlaps(h)
					for _, op := range h {
						out := op.Output.(vOut)
						if out.res == Retry && op.ClientId != 0 {
							retries++
						}
						if op.Input.(vIn).op == vPush && !out.ok {
							fulls++
						}
					}
				}
				checked += len(recorded)
			}
			t.Logf("%d histories; %d owner ops overlapping a steal; %d Retry, %d full pushes",
				checked, overlapping, retries, fulls)
			assert.Positive(t, overlapping, "no concurrency was recorded")
			assert.True(t, corrupted, "no history had a successful pop to corrupt")
		})
	}
}

// checkHistory runs porcupine on h and, on failure, logs the history and
// writes a visualization to a temporary file named in the log.
func checkHistory(t *testing.T, m porcupine.Model, i int, h []porcupine.Operation) porcupine.CheckResult {
	t.Helper()
	res, info := porcupine.CheckOperationsVerbose(m, h, 10*time.Second)
	if res != porcupine.Ok {
		var b strings.Builder
		for _, op := range h {
			fmt.Fprintf(&b, "  client %d [%d, %d] %s\n", op.ClientId, op.Call, op.Return,
				m.DescribeOperation(op.Input, op.Output))
		}
		path := filepath.Join(t.TempDir(), fmt.Sprintf("history-%d.html", i))
		if err := porcupine.VisualizePath(m, info, path); err == nil {
			t.Logf("visualization: %s", path)
		}
		t.Logf("history %d is %s:\n%s", i, res, b.String())
	}
	return res
}

// rejectsCorruptPop makes the first successful pop of h name a value never
// pushed and checks that porcupine rejects the result. It reports whether
// h had such a pop.
func rejectsCorruptPop(t *testing.T, m porcupine.Model, h []porcupine.Operation) bool {
	t.Helper()
	for j, op := range h {
		if op.Input.(vIn).op == vPop && op.Output.(vOut).val != 0 {
			bad := slices.Clone(h)
			bad[j].Output = vOut{val: -1}
			assert.Equal(t, porcupine.Illegal, porcupine.CheckOperationsTimeout(m, bad, 10*time.Second),
				"a pop of a never-pushed value must be rejected")
			return true
		}
	}
	return false
}

// countOverlaps counts the owner's operations that overlap a thief's.
func countOverlaps(h []porcupine.Operation) int {
	n := 0
	for _, a := range h {
		if a.ClientId != 0 {
			continue
		}
		for _, b := range h {
			if b.ClientId != 0 && a.Call < b.Return && b.Call < a.Return {
				n++
				break
			}
		}
	}
	return n
}

// TestSpecModelVerdicts shows that the spec models and the checker reject
// histories the variants must not produce and accept the subtle legal
// ones, so an Ok from TestLinearizable means something.
func TestSpecModelVerdicts(t *testing.T) {
	pushIn := func(v int) vIn { return vIn{op: vPush, val: v} }
	ok := vOut{ok: true}
	full := vOut{}
	popIn, stealIn := vIn{op: vPop}, vIn{op: vSteal}
	got := func(v int) vOut { return vOut{val: v, res: Success} }
	empty := vOut{res: Empty}
	unbounded := func() spec { return &sliceSpec{} }
	sOp := func(c int, call, ret int64, in vIn, out vOut) porcupine.Operation {
		return porcupine.Operation{ClientId: c, Call: call, Return: ret, Input: in, Output: out}
	}
	tests := []struct {
		name    string
		spec    func() spec
		history []porcupine.Operation
		want    porcupine.CheckResult
	}{
		{"pop must be LIFO", unbounded, []porcupine.Operation{
			sOp(0, 0, 1, pushIn(1), ok), sOp(0, 2, 3, pushIn(2), ok), sOp(0, 4, 5, popIn, vOut{val: 1}),
		}, porcupine.Illegal},
		{"steal must be FIFO", unbounded, []porcupine.Operation{
			sOp(0, 0, 1, pushIn(1), ok), sOp(0, 2, 3, pushIn(2), ok), sOp(1, 4, 5, stealIn, got(2)),
		}, porcupine.Illegal},
		{"steal Empty while an item is present", unbounded, []porcupine.Operation{
			sOp(0, 0, 1, pushIn(1), ok), sOp(1, 2, 3, stealIn, empty),
		}, porcupine.Illegal},
		{"pop nil while an item is present", unbounded, []porcupine.Operation{
			sOp(0, 0, 1, pushIn(1), ok), sOp(0, 2, 3, popIn, vOut{}),
		}, porcupine.Illegal},
		{"one item taken twice", unbounded, []porcupine.Operation{
			sOp(0, 0, 1, pushIn(1), ok), sOp(0, 2, 5, popIn, vOut{val: 1}), sOp(1, 3, 4, stealIn, got(1)),
		}, porcupine.Illegal},
		{"steal of a never-pushed value", unbounded, []porcupine.Operation{
			sOp(1, 0, 1, stealIn, got(7)),
		}, porcupine.Illegal},
		{"steal overlapping a push may see Empty", unbounded, []porcupine.Operation{
			sOp(0, 0, 3, pushIn(1), ok), sOp(1, 1, 2, stealIn, empty), sOp(0, 4, 5, popIn, vOut{val: 1}),
		}, porcupine.Ok},
		{"Retry is a no-op", unbounded, []porcupine.Operation{
			sOp(0, 0, 1, pushIn(1), ok), sOp(1, 2, 3, stealIn, vOut{res: Retry}), sOp(0, 4, 5, popIn, vOut{val: 1}),
		}, porcupine.Ok},
		{"owner and thief race for the last item, thief wins", unbounded, []porcupine.Operation{
			sOp(0, 0, 1, pushIn(1), ok), sOp(0, 2, 6, popIn, vOut{}), sOp(1, 3, 5, stealIn, got(1)),
		}, porcupine.Ok},
		{"overlapping steals may complete out of call order", unbounded, []porcupine.Operation{
			sOp(0, 0, 1, pushIn(1), ok), sOp(0, 2, 3, pushIn(2), ok),
			sOp(1, 4, 9, stealIn, got(2)), sOp(2, 5, 8, stealIn, got(1)),
		}, porcupine.Ok},
		{"ABP full at capacity", func() spec { return &abpSpec{capacity: 1} }, []porcupine.Operation{
			sOp(0, 0, 1, pushIn(1), ok), sOp(0, 2, 3, pushIn(2), full),
		}, porcupine.Ok},
		{"ABP push may not fail below capacity", func() spec { return &abpSpec{capacity: 2} }, []porcupine.Operation{
			sOp(0, 0, 1, pushIn(1), ok), sOp(0, 2, 3, pushIn(2), full),
		}, porcupine.Illegal},
		{"ABP stays full after steals until the owner empties it", func() spec { return &abpSpec{capacity: 1} }, []porcupine.Operation{
			sOp(0, 0, 1, pushIn(1), ok), sOp(1, 2, 3, stealIn, got(1)), sOp(0, 4, 5, pushIn(2), full),
			sOp(0, 6, 7, popIn, vOut{}), sOp(0, 8, 9, pushIn(3), ok),
		}, porcupine.Ok},
		{"BWoS steal Empty while all items are in the owner's block", func() spec { return newBWoSSpec(2, 2) }, []porcupine.Operation{
			sOp(0, 0, 1, pushIn(1), ok), sOp(0, 2, 3, pushIn(2), ok), sOp(1, 4, 5, stealIn, empty),
		}, porcupine.Ok},
		{"BWoS steal Empty while a granted block holds items", func() spec { return newBWoSSpec(2, 2) }, []porcupine.Operation{
			sOp(0, 0, 1, pushIn(1), ok), sOp(0, 2, 3, pushIn(2), ok), sOp(0, 4, 5, pushIn(3), ok),
			sOp(1, 6, 7, stealIn, empty),
		}, porcupine.Illegal},
		{"BWoS full when the next block holds items", func() spec { return newBWoSSpec(2, 1) }, []porcupine.Operation{
			sOp(0, 0, 1, pushIn(1), ok), sOp(0, 2, 3, pushIn(2), ok), sOp(0, 4, 5, pushIn(3), full),
			sOp(1, 6, 7, stealIn, got(1)), sOp(0, 8, 9, pushIn(3), ok),
		}, porcupine.Ok},
		{"BWoS steal overlapping the push that grants a block", func() spec { return newBWoSSpec(2, 1) }, []porcupine.Operation{
			sOp(0, 0, 1, pushIn(1), ok), sOp(0, 2, 5, pushIn(2), ok), sOp(1, 3, 4, stealIn, got(1)),
		}, porcupine.Ok},
		{"batch steal must take the oldest", unbounded, []porcupine.Operation{
			sOp(0, 0, 1, vIn{op: vPushBatch, vals: []int{1, 2, 3}}, vOut{}),
			sOp(1, 2, 3, vIn{op: vStealBatch, k: 2}, vOut{vals: []int{2, 3}, res: Success}),
		}, porcupine.Illegal},
		{"fraction rounds up", unbounded, []porcupine.Operation{
			sOp(0, 0, 1, vIn{op: vPushBatch, vals: []int{1, 2, 3}}, vOut{}),
			sOp(1, 2, 3, vIn{op: vStealFraction, k: 8, frac: 0.5}, vOut{vals: []int{1, 2}, res: Success}),
			sOp(0, 4, 5, popIn, vOut{val: 3}),
		}, porcupine.Ok},
		{"a batch push is atomic", unbounded, []porcupine.Operation{
			sOp(0, 0, 5, vIn{op: vPushBatch, vals: []int{1, 2}}, vOut{}),
			sOp(1, 1, 2, vIn{op: vStealBatch, k: 8}, vOut{vals: []int{1}, res: Success}),
		}, porcupine.Illegal},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := specModel(tt.spec)
			require.Equal(t, tt.want, porcupine.CheckOperationsTimeout(m, tt.history, 10*time.Second))
		})
	}
}
