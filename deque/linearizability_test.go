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

// linOp names a deque operation in a recorded history.
type linOp int

const (
	linPush linOp = iota
	linPop
	linSteal
)

// linInput is an operation's input: the pushed value for linPush.
type linInput struct {
	op  linOp
	val int
}

// linOutput is an operation's result: the value popped or stolen (0 for
// nil) and, for linSteal, the StealResult.
type linOutput struct {
	val int
	res StealResult
}

var linSeed = maphash.MakeSeed()

// dequeModel is the sequential specification the concurrent deque must
// linearize to. A state is a []int, oldest item first; Step never mutates
// it (porcupine requires pure steps), hence the clipped appends.
var dequeModel = porcupine.Model{
	Init: func() any { return []int(nil) },
	Step: func(state, input, output any) (bool, any) {
		s := state.([]int)
		in := input.(linInput)
		out := output.(linOutput)
		switch in.op {
		case linPush:
			return true, append(slices.Clip(s), in.val)
		case linPop:
			if out.val == 0 {
				// Pop returns nil only when the deque is empty.
				return len(s) == 0, s
			}
			if len(s) == 0 || s[len(s)-1] != out.val {
				return false, s
			}
			return true, slices.Clip(s[:len(s)-1])
		case linSteal:
			switch out.res {
			case Retry:
				// A lost race changes nothing; the model allows it
				// anywhere, which is weaker than the real guarantee
				// (Retry needs a concurrent winner) but is all a
				// linearizability check of one deque can demand.
				return true, s
			case Empty:
				return len(s) == 0, s
			case Success:
				if len(s) == 0 || s[0] != out.val {
					return false, s
				}
				return true, s[1:]
			}
		}
		return false, s
	},
	Equal: func(a, b any) bool { return slices.Equal(a.([]int), b.([]int)) },
	Hash: func(state any) uint64 {
		var h maphash.Hash
		h.SetSeed(linSeed)
		for _, v := range state.([]int) {
			maphash.WriteComparable(&h, v)
		}
		return h.Sum64()
	},
	DescribeOperation: func(input, output any) string {
		in := input.(linInput)
		out := output.(linOutput)
		switch in.op {
		case linPush:
			return fmt.Sprintf("Push(%d)", in.val)
		case linPop:
			return fmt.Sprintf("Pop() -> %d", out.val)
		default:
			return fmt.Sprintf("Steal() -> (%d, %v)", out.val, out.res)
		}
	},
	DescribeState: func(state any) string {
		return fmt.Sprint(state.([]int))
	},
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

// recordHistory runs one owner and some thieves concurrently on a fresh
// deque and returns the history of what they did. rng decides the plan up
// front, so the goroutines only execute it.
func recordHistory(rng *rand.Rand, thieves int) []porcupine.Operation {
	d := NewChaseLev[int](1 + rng.IntN(3)) // 1, 2 or 4 slots: growth happens
	var clock linClock

	// wait is a busy spin before the operation, yield a Gosched before it:
	// the first skews the two running goroutines against each other, the
	// second lets the goroutines that have no P (2 cores, up to 4 clients)
	// interleave with them.
	type planned struct {
		op    linOp
		val   int
		wait  int
		yield bool
	}
	// The owner pushes a few items first so thieves find work, then mixes.
	ownerOps := 14 + rng.IntN(12)
	ownerPlan := make([]planned, ownerOps)
	nextVal := 1
	for i := range ownerPlan {
		op := linPop
		if i < 3 || rng.IntN(100) < 60 {
			op = linPush
		}
		ownerPlan[i] = planned{op: op, wait: pause(rng), yield: rng.IntN(10) == 0}
		if op == linPush {
			ownerPlan[i].val = nextVal
			nextVal++
		}
	}
	thiefPlans := make([][]planned, thieves)
	for w := range thiefPlans {
		thiefPlans[w] = make([]planned, 3+rng.IntN(6))
		for i := range thiefPlans[w] {
			thiefPlans[w][i] = planned{op: linSteal, wait: pause(rng), yield: rng.IntN(10) == 0}
		}
	}

	logs := make([][]porcupine.Operation, 1+thieves)
	var ready sync.WaitGroup
	var start atomic.Bool
	var done sync.WaitGroup
	run := func(client int, plan []planned) {
		defer done.Done()
		ops := make([]porcupine.Operation, 0, len(plan))
		vals := make([]int, len(plan)) // pushed values live here
		ready.Done()
		for !start.Load() {
			runtime.Gosched()
		}
		for i, p := range plan {
			if p.yield {
				runtime.Gosched()
			}
			spin(p.wait)
			call := clock.tick()
			var out linOutput
			switch p.op {
			case linPush:
				vals[i] = p.val
				d.Push(&vals[i])
			case linPop:
				if v := d.Pop(); v != nil {
					out.val = *v
				}
			case linSteal:
				v, res := d.Steal()
				out.res = res
				if v != nil {
					out.val = *v
				}
			}
			ret := clock.tick()
			ops = append(ops, porcupine.Operation{
				ClientId: client,
				Input:    linInput{op: p.op, val: p.val},
				Call:     call,
				Output:   out,
				Return:   ret,
			})
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

// historyStats summarizes what a batch of histories exercised.
type historyStats struct {
	overlapping       int // histories with an owner op overlapping a steal
	steals, retries   int
	emptyPops, values int
}

func (s *historyStats) add(h []porcupine.Operation) {
	overlap := false
	for _, a := range h {
		switch in := a.Input.(linInput); {
		case in.op == linSteal:
			s.steals++
			if a.Output.(linOutput).res == Retry {
				s.retries++
			}
		case in.op == linPop && a.Output.(linOutput).val == 0:
			s.emptyPops++
		}
		if a.ClientId != 0 {
			continue
		}
		for _, b := range h {
			if b.ClientId != 0 && a.Call < b.Return && b.Call < a.Return {
				overlap = true
			}
		}
	}
	if overlap {
		s.overlapping++
	}
	s.values += len(h)
}

// checkHistory runs porcupine on h and, on failure, writes a visualization
// to a temporary file and names it in the log.
func checkHistory(t *testing.T, i int, h []porcupine.Operation) porcupine.CheckResult {
	t.Helper()
	res, info := porcupine.CheckOperationsVerbose(dequeModel, h, 10*time.Second)
	if res != porcupine.Ok {
		var b strings.Builder
		for _, op := range h {
			fmt.Fprintf(&b, "  client %d [%d, %d] %s\n", op.ClientId, op.Call, op.Return,
				dequeModel.DescribeOperation(op.Input, op.Output))
		}
		path := filepath.Join(t.TempDir(), fmt.Sprintf("history-%d.html", i))
		if err := porcupine.VisualizePath(dequeModel, info, path); err == nil {
			t.Logf("visualization: %s", path)
		}
		t.Logf("history %d is %s:\n%s", i, res, b.String())
	}
	return res
}

// TestLinearizable records many short concurrent histories on real deques
// and checks each against dequeModel with porcupine.
func TestLinearizable(t *testing.T) {
	needTwoPs(t)
	// Histories are cheap (about 0.1 ms each, 4 ms under the race
	// detector), and each one samples few real races, so take many.
	histories := 1000
	switch {
	case testing.Short():
		histories = 50
	case raceEnabled:
		histories = 300
	}
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 0x11ea))

	recorded := make([][]porcupine.Operation, histories)
	runWithWatchdog(t, watchdogLimit, func() {
		for i := range recorded {
			recorded[i] = recordHistory(rng, 2+i%2)
		}
	})

	var stats historyStats
	for i, h := range recorded {
		stats.add(h)
		require.Equal(t, porcupine.Ok, checkHistory(t, i, h), "history %d", i)
	}
	t.Logf("%d histories, %d ops; %d with an owner op overlapping a steal; %d steals (%d Retry), %d empty pops",
		histories, stats.values, stats.overlapping, stats.steals, stats.retries, stats.emptyPops)

	// The pipeline must also be able to say no: corrupt one recorded result
	// so it names a value never pushed, and porcupine must reject it.
	for _, h := range recorded {
		for j, op := range h {
			if op.Input.(linInput).op == linPop && op.Output.(linOutput).val != 0 {
				bad := slices.Clone(h)
				bad[j].Output = linOutput{val: -1}
				assert.Equal(t, porcupine.Illegal,
					porcupine.CheckOperationsTimeout(dequeModel, bad, 10*time.Second),
					"a pop of a never-pushed value must be rejected")
				return
			}
		}
	}
	t.Fatal("no history had a successful pop to corrupt")
}

// op builds a hand-written history entry.
func op(client int, call, ret int64, in linInput, out linOutput) porcupine.Operation {
	return porcupine.Operation{ClientId: client, Input: in, Call: call, Output: out, Return: ret}
}

func push(v int) linInput { return linInput{op: linPush, val: v} }

var (
	pop   = linInput{op: linPop}
	steal = linInput{op: linSteal}
)

// TestLinearizabilityCheckerVerdicts shows that the model and checker reject
// histories a correct deque cannot produce and accept subtle legal ones, so
// an Ok from TestLinearizable means something.
func TestLinearizabilityCheckerVerdicts(t *testing.T) {
	none := linOutput{}
	tests := []struct {
		name    string
		history []porcupine.Operation
		want    porcupine.CheckResult
	}{
		{"pop must be LIFO", []porcupine.Operation{
			op(0, 0, 1, push(1), none),
			op(0, 2, 3, push(2), none),
			op(0, 4, 5, pop, linOutput{val: 1}),
		}, porcupine.Illegal},
		{"steal must be FIFO", []porcupine.Operation{
			op(0, 0, 1, push(1), none),
			op(0, 2, 3, push(2), none),
			op(1, 4, 5, steal, linOutput{val: 2, res: Success}),
		}, porcupine.Illegal},
		{"steal Empty while an item is present", []porcupine.Operation{
			op(0, 0, 1, push(1), none),
			op(1, 2, 3, steal, linOutput{res: Empty}),
		}, porcupine.Illegal},
		{"pop nil while an item is present", []porcupine.Operation{
			op(0, 0, 1, push(1), none),
			op(0, 2, 3, pop, none),
		}, porcupine.Illegal},
		{"one item taken twice", []porcupine.Operation{
			op(0, 0, 1, push(1), none),
			op(0, 2, 5, pop, linOutput{val: 1}),
			op(1, 3, 4, steal, linOutput{val: 1, res: Success}),
		}, porcupine.Illegal},
		{"steal of a never-pushed value", []porcupine.Operation{
			op(1, 0, 1, steal, linOutput{val: 7, res: Success}),
		}, porcupine.Illegal},
		{"steal overlapping a push may see Empty", []porcupine.Operation{
			op(0, 0, 3, push(1), none),
			op(1, 1, 2, steal, linOutput{res: Empty}),
			op(0, 4, 5, pop, linOutput{val: 1}),
		}, porcupine.Ok},
		{"Retry is a no-op", []porcupine.Operation{
			op(0, 0, 1, push(1), none),
			op(1, 2, 3, steal, linOutput{res: Retry}),
			op(0, 4, 5, pop, linOutput{val: 1}),
		}, porcupine.Ok},
		{"owner and thief race for the last item, thief wins", []porcupine.Operation{
			op(0, 0, 1, push(1), none),
			op(0, 2, 6, pop, none),
			op(1, 3, 5, steal, linOutput{val: 1, res: Success}),
		}, porcupine.Ok},
		{"overlapping steals may complete out of call order", []porcupine.Operation{
			op(0, 0, 1, push(1), none),
			op(0, 2, 3, push(2), none),
			op(1, 4, 9, steal, linOutput{val: 2, res: Success}),
			op(2, 5, 8, steal, linOutput{val: 1, res: Success}),
		}, porcupine.Ok},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := porcupine.CheckOperationsTimeout(dequeModel, tt.history, 10*time.Second)
			assert.Equal(t, tt.want, got)
		})
	}
}
