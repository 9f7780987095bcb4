package runtime

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/spindle-go/spindle/internal/testutil"
	"github.com/spindle-go/spindle/internal/xorshift"
)

var burnSink atomic.Int64

// seeded is a seeded generator for the tests' random choices.
type seeded uint64

func (x *seeded) intn(n int) int {
	return int(xorshift.Next((*uint64)(x)) % uint64(n))
}

// oneWorkerOrder spawns a random tree of tasks of random levels (single
// spawns and bulk spawns, spawned from the body and from tasks) on a registry
// with one worker and returns how many tasks started while a task of a
// higher level was queued. With one worker nothing runs between a spawn
// call and its return, so "queued" is exact: spawned (the call returned)
// and not yet started.
func oneWorkerOrder(t *testing.T, policy PriorityPolicy) (violations int, st Counts) {
	p := newRegistry(t, Config{Workers: 1, Priority: policy})
	var (
		queued [MaxPriority + 1]int // touched by the single worker only
		total  int
		rng    = seeded(0x9E3779B97F4A7C15)
	)
	const maxTasks = 3000
	var task func(s *Scope, level int)
	start := func(level int) {
		queued[level]--
		for l := level + 1; l <= MaxPriority; l++ {
			if queued[l] > 0 {
				violations++
				break
			}
		}
	}
	spawnSome := func(s *Scope, k int) {
		for range k {
			if total >= maxTasks {
				return
			}
			level := rng.intn(MaxPriority + 1)
			if rng.intn(4) == 0 {
				n := 1 + rng.intn(8)
				total += n
				s.SpawnManyPriority(level, n, func(s *Scope, _ int) { task(s, level) })
				queued[level] += n
				continue
			}
			total++
			s.SpawnPriority(level, func(s *Scope) { task(s, level) })
			queued[level]++
		}
	}
	task = func(s *Scope, level int) {
		start(level)
		// A join inside a task: its halves continue the task, they are
		// not starts.
		join(func() { burnSink.Add(int64(testutil.Burn(50))) }, func() { burnSink.Add(int64(testutil.Burn(50))) })
		spawnSome(s, rng.intn(4))
	}
	watchdog(t, func() {
		p.Scope("test scope", func(s *Scope) { spawnSome(s, 40) })
	})
	for l, n := range queued {
		require.Zero(t, n, "level %d: tasks spawned but never started", l)
	}
	require.Equal(t, maxTasks, total)
	return violations, p.Counts()
}

// TestStrictPriorityOneWorker: with one worker, no task starts while a
// task of a higher level is queued, under the strict policy and (there
// being no race to lose) under scan-all; the oblivious policy breaks the
// rule, which shows the check can fail.
func TestStrictPriorityOneWorker(t *testing.T) {
	for _, tc := range []struct {
		policy      PriorityPolicy
		wantOrdered bool
	}{
		{PriorityStrict, true},
		{PriorityScanAll, true},
		{PrioritySample, true},
		{PriorityOblivious, false},
	} {
		t.Run(tc.policy.String(), func(t *testing.T) {
			violations, st := oneWorkerOrder(t, tc.policy)
			if tc.wantOrdered {
				assert.Zero(t, violations)
				assert.Zero(t, st.Total.Inversions)
			} else {
				assert.Positive(t, violations)
				assert.Positive(t, st.Total.Inversions)
			}
		})
	}
}

// startRecord is one task start, in start order.
type startRecord struct{ level int }

// severalWorkersOrder occupies all workers but the body's with gate tasks,
// spawns a batch of tasks of random levels (single and bulk spawns) while
// none can start, releases the gates and records the order in which the
// batch's tasks start. It returns, for the worst task T, how many tasks of
// a higher level than T's started after T.
//
// Under the strict policy that is at most workers-1: a task H of a higher
// level that starts after T must have been claimed before T was admitted
// (all of the batch was queued before any of it could start, and T's
// worker saw nothing of a higher level queued), so at T's start H's worker
// was between claiming H and starting it, and a worker holds one such task
// at a time.
func severalWorkersOrder(t *testing.T, workers int, policy PriorityPolicy) (worst int, st Counts) {
	p := newRegistry(t, Config{Workers: workers, Priority: policy})
	const tasks = 1200
	order := make([]startRecord, tasks)
	var next atomic.Int64
	record := func(level int) {
		order[next.Add(1)-1] = startRecord{level}
		burnSink.Add(int64(testutil.Burn(200)))
	}
	watchdog(t, func() {
		p.Scope("test scope", func(s *Scope) {
			var started atomic.Int32
			var release atomic.Bool
			for range workers - 1 {
				s.SpawnPriority(MaxPriority, func(*Scope) {
					started.Add(1)
					for !release.Load() {
						burnSink.Add(int64(testutil.Burn(10)))
					}
				})
			}
			for started.Load() != int32(workers-1) {
				burnSink.Add(int64(testutil.Burn(10)))
			}
			rng := seeded(12345)
			for n := 0; n < tasks; {
				level := rng.intn(MaxPriority + 1)
				if k := min(1+rng.intn(16), tasks-n); rng.intn(3) == 0 {
					s.SpawnManyPriority(level, k, func(*Scope, int) { record(level) })
					n += k
					continue
				}
				s.SpawnPriority(level, func(*Scope) { record(level) })
				n++
			}
			release.Store(true)
		})
	})
	require.Equal(t, int64(tasks), next.Load())
	// later[l] counts the tasks of level l that started after the current
	// position, scanning backwards.
	var later [MaxPriority + 1]int
	for i := tasks - 1; i >= 0; i-- {
		l := order[i].level
		higher := 0
		for h := l + 1; h <= MaxPriority; h++ {
			higher += later[h]
		}
		worst = max(worst, higher)
		later[l]++
	}
	return worst, p.Counts()
}

// TestStrictPrioritySeveralWorkers: with several workers, a task of a
// lower level never starts while one of a higher level is queued (up to
// the tasks other workers had claimed but not yet started, at most one
// each). The oblivious policy breaks it by far, which shows the check
// can fail.
func TestStrictPrioritySeveralWorkers(t *testing.T) {
	for _, workers := range []int{2, 4} {
		t.Run(fmt.Sprintf("workers=%d", workers), func(t *testing.T) {
			worst, st := severalWorkersOrder(t, workers, PriorityStrict)
			assert.LessOrEqual(t, worst, workers-1, "a higher-level task started after a lower one beyond the claimed-not-started slack")
			assert.Zero(t, st.Total.Inversions)

			worst, st = severalWorkersOrder(t, workers, PriorityOblivious)
			assert.Greater(t, worst, workers-1)
			assert.Positive(t, st.Total.Inversions)

			worst, st = severalWorkersOrder(t, workers, PriorityScanAll)
			t.Logf("scan-all: worst %d, inversions %d", worst, st.Total.Inversions)
		})
	}
}

// TestPriorityPoliciesUnderNesting mixes priority spawns, bulk spawns,
// joins, nested scopes, futures and spawns from goroutines outside the
// registry on several workers: every task runs exactly once and nothing
// deadlocks, under every policy.
func TestPriorityPoliciesUnderNesting(t *testing.T) {
	for _, policy := range []PriorityPolicy{PriorityStrict, PriorityScanAll, PrioritySample, PriorityOblivious} {
		t.Run(policy.String(), func(t *testing.T) {
			p := newRegistry(t, Config{Workers: 4, Priority: policy})
			const tasks = 4000
			var ids atomic.Int64
			counts := make([]atomic.Int32, tasks)
			var spawned atomic.Int64
			// claim reserves k task ids, or returns -1 when the budget is
			// spent.
			claim := func(k int) int {
				if spawned.Add(int64(k)) > tasks {
					spawned.Add(int64(-k))
					return -1
				}
				return int(ids.Add(int64(k))) - k
			}
			var task func(s *Scope, id int, seed uint64)
			task = func(s *Scope, id int, seed uint64) {
				counts[id].Add(1)
				rng := seeded(seed | 1)
				switch rng.intn(6) {
				case 0:
					join(func() { burnSink.Add(int64(testutil.Burn(30))) }, func() { burnSink.Add(int64(testutil.Burn(30))) })
				case 1:
					p.Scope("test scope", func(inner *Scope) {
						if first := claim(2); first >= 0 {
							inner.SpawnPriority(rng.intn(4), func(inner *Scope) { task(inner, first, seed*3) })
							inner.SpawnPriority(rng.intn(4), func(inner *Scope) { task(inner, first+1, seed*5) })
						}
					})
				case 2:
					burnSink.Add(int64(submit(p, func() int { return testutil.Burn(40) })))
				}
				for range rng.intn(3) {
					level := rng.intn(MaxPriority + 1)
					if rng.intn(3) == 0 {
						k := 1 + rng.intn(20)
						if first := claim(k); first >= 0 {
							s.SpawnManyPriority(level, k, func(s *Scope, i int) { task(s, first+i, seed*7+uint64(i)) })
						}
						continue
					}
					if id := claim(1); id >= 0 {
						s.SpawnPriority(level, func(s *Scope) { task(s, id, seed*11) })
					}
				}
			}
			watchdog(t, func() {
				p.Scope("test scope", func(s *Scope) {
					var wg sync.WaitGroup
					for g := range 3 { // spawns from outside the registry go through the injectors
						wg.Add(1)
						go func() {
							defer wg.Done()
							for k := range 5 {
								if id := claim(1); id >= 0 {
									s.SpawnPriority((g+k)%(MaxPriority+1), func(s *Scope) { task(s, id, uint64(g*100+k)) })
								}
							}
						}()
					}
					for k := range 20 {
						if id := claim(1); id >= 0 {
							s.SpawnPriority(k%(MaxPriority+1), func(s *Scope) { task(s, id, uint64(k)+1000) })
						}
					}
					wg.Wait()
				})
			})
			n := int(ids.Load())
			require.Positive(t, n)
			for i := range n {
				require.Equal(t, int32(1), counts[i].Load(), "task %d", i)
			}
			t.Logf("%v: max help depth %d, inversions %d", policy, p.Counts().MaxHelpDepth, p.Counts().Total.Inversions)
			// The strict guarantee yields to the help bound: a worker 64
			// jobs deep starts what it claimed (counted as an inversion)
			// rather than nest more urgent work; scope waits inside tasks
			// nest that deep here.
			if policy == PriorityStrict && p.Counts().MaxHelpDepth < 64 {
				assert.Zero(t, p.Counts().Total.Inversions, "%v", p.Counts())
			}
			st := p.Counts()
			var byLevel uint64
			for _, s := range st.Total.StealsByLevel {
				byLevel += s
			}
			assert.Equal(t, st.Total.Steals, byLevel, "steals by level add up to steals")
		})
	}
}

// TestSpawnManyRunsEachTaskOnce covers sizes, worker counts, levels and
// policies, from a worker and from a goroutine outside the registry.
func TestSpawnManyRunsEachTaskOnce(t *testing.T) {
	for _, n := range []int{1, 2, 3, 1000, 100_000} {
		for _, workers := range []int{1, 4} {
			for _, level := range []int{0, 2} {
				for _, policy := range []PriorityPolicy{PriorityScanAll, PrioritySample, PriorityStrict} {
					for _, outside := range []bool{false, true} {
						name := fmt.Sprintf("n=%d/workers=%d/level=%d/%v/outside=%v", n, workers, level, policy, outside)
						t.Run(name, func(t *testing.T) {
							p := newRegistry(t, Config{Workers: workers, Priority: policy})
							counts := make([]atomic.Int32, n)
							f := func(_ *Scope, i int) {
								counts[i].Add(1)
								if i%64 == 0 {
									burnSink.Add(int64(testutil.Burn(500))) // some slow tasks, so idle workers ask for splits
								}
							}
							watchdog(t, func() {
								p.Scope("test scope", func(s *Scope) {
									if !outside {
										s.SpawnManyPriority(level, n, f)
										return
									}
									done := make(chan struct{})
									go func() {
										defer close(done)
										s.SpawnManyPriority(level, n, f)
									}()
									<-done
								})
							})
							for i := range counts {
								if c := counts[i].Load(); c != 1 {
									require.Equal(t, int32(1), c, "task %d ran %d times", i, c)
								}
							}
						})
					}
				}
			}
		}
	}
}

// TestSpawnManyNested: bulk spawns inside the tasks of bulk spawns.
func TestSpawnManyNested(t *testing.T) {
	p := newRegistry(t, Config{Workers: 4})
	const outer, inner = 200, 300
	counts := make([]atomic.Int32, outer*inner)
	watchdog(t, func() {
		p.Scope("test scope", func(s *Scope) {
			s.SpawnMany(outer, func(s *Scope, i int) {
				s.SpawnMany(inner, func(_ *Scope, j int) { counts[i*inner+j].Add(1) })
			})
		})
	})
	for i := range counts {
		require.Equal(t, int32(1), counts[i].Load(), "task %d", i)
	}
}

// TestSpawnManyPanics: every task runs once even when some panic, and the
// scope re-panics with one of their panics.
func TestSpawnManyPanics(t *testing.T) {
	p := newRegistry(t, Config{Workers: 4})
	const n = 5000
	counts := make([]atomic.Int32, n)
	bad := []int{7, 2500, 4999}
	var v any
	watchdog(t, func() {
		v = recoverValue(func() {
			p.Scope("test scope", func(s *Scope) {
				s.SpawnMany(n, func(_ *Scope, i int) {
					counts[i].Add(1)
					if slices.Contains(bad, i) {
						panic(i)
					}
				})
			})
		})
	})
	pe, ok := raised(v)
	require.True(t, ok, "want *PanicError, got %T %v", v, v)
	assert.Contains(t, bad, pe.Value)
	for i := range counts {
		require.Equal(t, int32(1), counts[i].Load(), "task %d", i)
	}
}

// TestSpawnManySpreadsOverWorkers: a bulk spawn on a registry with an idle
// worker hands that worker part of the tasks (the runner splits its part
// when it sees a worker looking). The idle worker must be able to look
// while the runner runs, so the test needs two Ps. A loaded machine may
// not run the idle worker's thread for a while, so a worker's tasks wait
// (up to a deadline far beyond any scheduling delay) until the other
// worker has run one: the outcome then depends on whether the bulk spawn
// exposes work to the idle worker, not on timing.
func TestSpawnManySpreadsOverWorkers(t *testing.T) {
	testutil.NeedTwoPs(t)
	p := newRegistry(t, Config{Workers: 2})
	var ran [2]atomic.Int32
	deadline := time.Now().Add(20 * time.Second)
	watchdog(t, func() {
		p.Scope("test scope", func(s *Scope) {
			s.SpawnMany(2000, func(*Scope, int) {
				me := CurrentWorker().Index()
				ran[me].Add(1)
				for ran[1-me].Load() == 0 && time.Now().Before(deadline) {
					time.Sleep(50 * time.Microsecond)
				}
				burnSink.Add(int64(testutil.Burn(2000)))
			})
		})
	})
	assert.Positive(t, ran[0].Load())
	assert.Positive(t, ran[1].Load())
	assert.Positive(t, p.Counts().Total.Steals)
}

// TestStrictOrdersInjectedTasks: urgent tasks spawned from goroutines
// outside the registry (through the level injectors) all start before any
// level-0 task of a bulk spawn made after them, up to the one task the
// other worker may have claimed and not yet started.
func TestStrictOrdersInjectedTasks(t *testing.T) {
	const workers = 2
	p := newRegistry(t, Config{Workers: workers, Priority: PriorityStrict})
	var order []int
	var mu sync.Mutex
	note := func(l int) { mu.Lock(); order = append(order, l); mu.Unlock() }
	watchdog(t, func() {
		p.Scope("test scope", func(s *Scope) {
			var wg sync.WaitGroup
			for range 50 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					s.SpawnPriority(MaxPriority, func(*Scope) { note(MaxPriority); burnSink.Add(int64(testutil.Burn(2000))) })
				}()
			}
			wg.Wait()
			s.SpawnMany(100, func(*Scope, int) { note(0) })
		})
	})
	require.Len(t, order, 150)
	assert.GreaterOrEqual(t, slices.Index(order, 0), 50-(workers-1), "first level-0 start")
}

// TestSampledSearchDoesNotStrandTasks: a task spawns an urgent task and
// blocks until it runs. Under the sampling policy an idle worker's search
// may skip the spawner, but its last search before sleeping tries every
// worker, so the urgent task always runs (a missed wake-up would leave it
// queued on the blocked spawner forever, and the watchdog would fire).
func TestSampledSearchDoesNotStrandTasks(t *testing.T) {
	p := newRegistry(t, Config{Workers: 5, Priority: PrioritySample})
	watchdog(t, func() {
		for range 300 {
			p.Scope("test scope", func(s *Scope) {
				s.Spawn(func(s *Scope) {
					ran := make(chan struct{})
					s.SpawnPriority(1, func(*Scope) { close(ran) })
					<-ran // blocks this worker: only another one can run it
				})
			})
		}
	})
}

// TestStrictNestingIsBounded: under the strict policy, a worker that waits
// (here for a future) and is offered more urgent work runs it on top of
// its stack; that nesting stops at the help bound instead of growing with
// the number of queued tasks.
func TestStrictNestingIsBounded(t *testing.T) {
	p := newRegistry(t, Config{Workers: 2, Priority: PriorityStrict})
	const n = 20_000
	var done atomic.Int64
	watchdog(t, func() {
		p.Scope("test scope", func(s *Scope) {
			s.SpawnManyPriority(1, n, func(*Scope, int) {
				submit(p, func() int { return 1 })
				done.Add(1)
			})
		})
	})
	require.Equal(t, int64(n), done.Load())
	assert.LessOrEqual(t, p.Counts().MaxHelpDepth, 70)
}

// TestLoopInUrgentTaskIsNotPreempted: a loop (Worker.ForChunks, which
// forkjoin.For runs) inside an urgent task runs its chunks ahead of less
// urgent queued tasks (they are the urgent task's own work), but a loop in
// a routine task lets urgent tasks go first.
func TestLoopInUrgentTaskIsNotPreempted(t *testing.T) {
	for _, policy := range []PriorityPolicy{PriorityScanAll, PriorityStrict} {
		t.Run(policy.String(), func(t *testing.T) {
			p := newRegistry(t, Config{Workers: 1, Priority: policy})
			var loopDone, lowRan atomic.Bool
			var lowBeforeLoopEnd atomic.Bool
			watchdog(t, func() {
				p.Scope("test scope", func(s *Scope) {
					s.SpawnPriority(1, func(*Scope) { lowRan.Store(true); lowBeforeLoopEnd.Store(!loopDone.Load()) })
					s.SpawnPriority(3, func(*Scope) {
						CurrentWorker().ForChunks(0, 10_000, 10, func(lo, hi int) { burnSink.Add(int64(testutil.Burn(hi - lo))) })
						loopDone.Store(true)
					})
				})
			})
			assert.True(t, lowRan.Load())
			assert.False(t, lowBeforeLoopEnd.Load(), "a level-1 task ran inside the level-3 task's loop")
			assert.Zero(t, p.Counts().Total.Inversions)

			// A loop in a level-0 task gives way to urgent work.
			var urgentDuringLoop atomic.Bool
			var inLoop atomic.Bool
			p.Run("test run", func() {
				p.Scope("test scope", func(s *Scope) {
					inLoop.Store(true)
					CurrentWorker().ForChunks(0, 1000, 1, func(lo, hi int) {
						if lo == 10 {
							s.SpawnPriority(2, func(*Scope) { urgentDuringLoop.Store(inLoop.Load()) })
						}
					})
					inLoop.Store(false)
				})
			})
			assert.True(t, urgentDuringLoop.Load(), "the urgent task waited for the whole loop")
		})
	}
}

// TestSpawnManyPartsKeepTheirBatch: each part of a bulk spawn carries its
// own copy of the scope and the function (runtime's batchPart.scope), and
// part records are recycled between workers. Tasks of many bulk spawns on
// different scopes, split and stolen at once, must each run exactly once,
// on the scope of their own bulk spawn.
func TestSpawnManyPartsKeepTheirBatch(t *testing.T) {
	p := newRegistry(t, Config{Workers: 4})
	const outer, inner = 64, 500
	counts := make([]atomic.Int32, outer*inner)
	var wrongScope atomic.Int32
	watchdog(t, func() {
		p.Scope("test scope", func(s *Scope) {
			s.SpawnMany(outer, func(_ *Scope, i int) {
				currentScope(func(own *Scope) {
					own.SpawnMany(inner, func(got *Scope, j int) {
						if got != own {
							wrongScope.Add(1)
						}
						counts[i*inner+j].Add(1)
						if j%50 == 0 {
							burnSink.Add(int64(testutil.Burn(200))) // slow tasks, so that idle workers ask for splits
						}
					})
				})
			})
		})
	})
	assert.Zero(t, wrongScope.Load(), "tasks run on another bulk spawn's scope")
	for i := range counts {
		require.Equal(t, int32(1), counts[i].Load(), "task %d", i)
	}
}

// TestSpawnManyAllocatesNothing: a bulk spawn allocates nothing of its own
// in steady state (its part records come from the workers' free lists and
// carry the scope and function), so a scope holding one allocates what an
// empty scope does. Each bulk spawn used to allocate a record for its
// batch. The function is made once, outside the measurement.
func TestSpawnManyAllocatesNothing(t *testing.T) {
	p := newRegistry(t, Config{Workers: 1})
	var sink atomic.Int64
	task := func(_ *Scope, i int) { sink.Add(int64(i)) }
	empty := func(*Scope) {}
	bulk := func(s *Scope) { s.SpawnMany(16, task) }
	watchdog(t, func() {
		var base, withBulk float64
		p.Run("test run", func() {
			cur := CurrentWorker().Registry()
			for range 10 { // fill the free lists
				cur.Scope("test scope", bulk)
			}
			base = testing.AllocsPerRun(100, func() { cur.Scope("test scope", empty) })
			withBulk = testing.AllocsPerRun(100, func() { cur.Scope("test scope", bulk) })
		})
		assert.Equal(t, base, withBulk, "allocations of a scope with a bulk spawn in it, against an empty one")
	})
}

// TestSpawnManyTasksPanic panics in some or all tasks of a bulk spawn. A
// part's runner guards its whole run of tasks with one recover and, after
// a panic, goes on with the next task of what is left of its part: every
// task must run exactly once (none skipped, none run again), and the scope
// re-panics with one of the panics. On one worker a bulk spawn is one part
// (no steals); on two and four, parts split and are stolen.
func TestSpawnManyTasksPanic(t *testing.T) {
	patterns := []struct {
		name   string
		n      int
		panics func(i int) bool
	}{
		{"first", 64, func(i int) bool { return i == 0 }},
		{"last", 64, func(i int) bool { return i == 63 }},
		{"middle", 64, func(i int) bool { return i == 32 }},
		{"every other", 64, func(i int) bool { return i%2 == 1 }},
		{"runs of three", 64, func(i int) bool { return i%8 < 3 }},
		{"every task", 1000, func(int) bool { return true }},
	}
	for _, workers := range []int{1, 2, 4} {
		for _, pat := range patterns {
			t.Run(fmt.Sprintf("workers=%d/%s", workers, pat.name), func(t *testing.T) {
				p := newRegistry(t, Config{Workers: workers})
				for range 10 {
					counts := make([]atomic.Int32, pat.n)
					var v any
					watchdog(t, func() {
						v = recoverValue(func() {
							p.Scope("test scope", func(s *Scope) {
								s.SpawnMany(pat.n, func(_ *Scope, i int) {
									counts[i].Add(1)
									if pat.panics(i) {
										panic(i)
									}
								})
							})
						})
					})
					pe, ok := raised(v)
					require.True(t, ok, "want *PanicError, got %T %v", v, v)
					i, ok := pe.Value.(int)
					require.True(t, ok, "panic value %T %v", pe.Value, pe.Value)
					assert.True(t, pat.panics(i), "re-raised the panic of task %d, which did not panic", i)
					for i := range counts {
						require.Equal(t, int32(1), counts[i].Load(), "task %d", i)
					}
				}
			})
		}
	}
}
