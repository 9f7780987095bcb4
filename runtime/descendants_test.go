package runtime

import (
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestARunningTaskTakesOnlyItsOwnDescendantsOfItsScopeAndType pins the
// rules of popDescendant and nextDescendant on one worker: the newest job
// is popped only if the deque grew past the length given (the job was
// pushed after the running task started), and taken only if it is a
// SpawnValue task of the same scope and type; any other job goes back on
// top of the deque.
func TestARunningTaskTakesOnlyItsOwnDescendantsOfItsScopeAndType(t *testing.T) {
	r := newRegistry(t, Config{Workers: 1})
	watchdog(t, func() {
		var ran atomic.Int64
		count := func(*Scope, int) { ran.Add(1) }
		countString := func(*Scope, string) { ran.Add(1) }
		r.Scope("test scope", func(outer *Scope) {
			w := CurrentWorker()
			r.Scope("test scope", func(s *Scope) {
				SpawnValue("test spawn", s, count, 1)
				below := w.deque.Len()
				assert.Nil(t, w.popDescendant(below), "a job pushed before the task started")
				assert.Equal(t, below, w.deque.Len(), "the job stays on the deque")

				SpawnValue("test spawn", s, count, 2)
				v := nextDescendant[int](w, s, w.popDescendant(below))
				require.NotNil(t, v, "a task of the scope and type pushed since")
				assert.Equal(t, 2, v.x)
				assert.Equal(t, below, w.deque.Len())
				w.unpop(&v.job) // the scope's wait runs it

				others := []struct {
					name  string
					spawn func()
				}{
					{"a closure task", func() { s.Spawn(func(*Scope) { ran.Add(1) }) }},
					{"a task of another type", func() { SpawnValue("test spawn", s, countString, "x") }},
					{"a task of another scope", func() { SpawnValue("test spawn", outer, count, 3) }},
				}
				for _, o := range others {
					o.spawn()
					top := w.deque.Peek()
					n := w.deque.Len()
					assert.Nil(t, nextDescendant[int](w, s, w.popDescendant(below)), o.name)
					assert.Equal(t, n, w.deque.Len(), "%s stays on the deque", o.name)
					assert.Same(t, top, w.deque.Peek(), "%s stays on top", o.name)
				}
			})
		})
		assert.Equal(t, int64(5), ran.Load(), "every task ran once")
	})
}

// TestAPanicInATaskRunInPlaceFinishesItAndLeavesTheRest walks a tree with
// a task per node on one worker, spawned with SpawnValue or as closures,
// where one node in the middle of the tree panics after spawning its
// children: its worker runs most nodes in place from an ancestor's Run
// (descendants.go), so the panicking task is one of those. The scope must
// re-panic with that value after every other node ran exactly once, and
// the worker must serve the next scope as before.
func TestAPanicInATaskRunInPlaceFinishesItAndLeavesTheRest(t *testing.T) {
	const fanout, depth, bad = 3, 5, 20
	nodes := 0
	for d, n := 0, 1; d <= depth; d, n = d+1, n*fanout {
		nodes += n
	}
	type node struct{ id, depth int }
	spawners := []struct {
		name  string
		spawn func(s *Scope, visit func(*Scope, node), n node)
	}{
		{"SpawnValue", func(s *Scope, visit func(*Scope, node), n node) {
			SpawnValue("test spawn", s, visit, n)
		}},
		{"closures", func(s *Scope, visit func(*Scope, node), n node) {
			s.Spawn(func(s *Scope) { visit(s, n) })
		}},
	}
	for _, sp := range spawners {
		t.Run(sp.name, func(t *testing.T) {
			r := newRegistry(t, Config{Workers: 1})
			watchdog(t, func() {
				for range 3 {
					visits := make([]atomic.Int32, nodes)
					var visit func(s *Scope, n node)
					visit = func(s *Scope, n node) {
						visits[n.id].Add(1)
						if n.depth < depth {
							for i := range fanout {
								sp.spawn(s, visit, node{n.id*fanout + i + 1, n.depth + 1})
							}
						}
						if n.id == bad {
							panic("node 20")
						}
					}
					// From a task, so that a panic escaping the scope's wait
					// would reach recoverValue as it is.
					v := submit(r, func() any {
						return recoverValue(func() {
							r.Scope("test scope", func(s *Scope) { visit(s, node{0, 0}) })
						})
					})
					pe, ok := raised(v)
					require.True(t, ok, "the scope re-panics with the task's panic, got %v", v)
					assert.Equal(t, "node 20", pe.Value)
					for id := range visits {
						assert.Equal(t, int32(1), visits[id].Load(), "node %d", id)
					}
				}
			})
		})
	}
}

// TestARunningClosureTaskTakesOnlyClosureTasksOfItsScope is the same for
// Scope.Spawn's tasks (nextClosureDescendant).
func TestARunningClosureTaskTakesOnlyClosureTasksOfItsScope(t *testing.T) {
	r := newRegistry(t, Config{Workers: 1})
	watchdog(t, func() {
		var ran atomic.Int64
		task := func(*Scope) { ran.Add(1) }
		r.Scope("test scope", func(outer *Scope) {
			w := CurrentWorker()
			r.Scope("test scope", func(s *Scope) {
				s.Spawn(task)
				below := w.deque.Len()
				assert.Nil(t, w.popDescendant(below), "a job pushed before the task started")

				s.Spawn(task)
				v := nextClosureDescendant(w, s, w.popDescendant(below))
				require.NotNil(t, v, "a closure task of the scope pushed since")
				assert.Equal(t, below, w.deque.Len())
				w.unpop(&v.job)

				others := []struct {
					name  string
					spawn func()
				}{
					{"a task with an argument", func() { SpawnValue("test spawn", s, func(*Scope, int) { ran.Add(1) }, 1) }},
					{"a closure task of another scope", func() { outer.Spawn(task) }},
				}
				for _, o := range others {
					o.spawn()
					top := w.deque.Peek()
					n := w.deque.Len()
					assert.Nil(t, nextClosureDescendant(w, s, w.popDescendant(below)), o.name)
					assert.Equal(t, n, w.deque.Len(), "%s stays on the deque", o.name)
					assert.Same(t, top, w.deque.Peek(), "%s stays on top", o.name)
				}
			})
		})
		assert.Equal(t, int64(4), ran.Load(), "every task ran once")
	})
}

// TestOneTaskPerRunTurnsRunningDescendantsInPlaceOff checks the research
// setting that benchmarks compare with: a worker of such a registry, or
// one with a deque variant, runs one task per Run (descendantsAbove is
// -1); a default worker marks where its task's descendants start.
func TestOneTaskPerRunTurnsRunningDescendantsInPlaceOff(t *testing.T) {
	tests := []struct {
		name    string
		cfg     Config
		inPlace bool
	}{
		{"default", Config{Workers: 1}, true},
		{"OneTaskPerRun", Config{Workers: 1, Research: Research{OneTaskPerRun: true}}, false},
		{"eager Chase-Lev variant", Config{Workers: 1, Research: Research{Deque: eagerChaseLev}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRegistry(t, tt.cfg)
			watchdog(t, func() {
				var above int
				r.Scope("test scope", func(s *Scope) {
					SpawnValue("test spawn", s, func(*Scope, int) {}, 1)
					above = CurrentWorker().descendantsAbove()
				})
				if tt.inPlace {
					assert.Equal(t, 1, above)
				} else {
					assert.Equal(t, -1, above)
				}
			})
		})
	}
}
