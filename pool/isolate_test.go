package pool_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/spindle-go/spindle/forkjoin"
	"github.com/spindle-go/spindle/internal/testutil"
	"github.com/spindle-go/spindle/pool"
)

// isolateLimit bounds the isolation tests: each finishes in well under a
// second when the regions hold; a worker that runs an unrelated task
// inside a region hangs them for good.
const isolateLimit = 20 * time.Second

// The deadlock Isolate exists for: a task forks while holding a lock; its
// second half is stolen, so the worker waits inside the lock, and while it
// waits another queued task that takes the same lock is there to run.
// Without isolation the waiting worker starts that task on its own
// goroutine, which blocks on the lock its caller holds, forever.
func TestIsolateKeepsALockedForkFromRunningATaskThatTakesTheLock(t *testing.T) {
	testutil.NeedTwoPs(t)
	for _, style := range []struct {
		name string
		fork func(a, b func())
	}{
		{"Join", pool.Join},
		{"Scope", func(a, b func()) {
			pool.Current().Scope(func(s *pool.Scope) {
				s.Spawn(func(*pool.Scope) { b() })
				a()
			})
		}},
		{"Group", func(a, b func()) {
			g, _ := pool.Current().NewGroup(context.Background())
			g.Go(func() error { b(); return nil })
			a()
			_ = g.Wait()
		}},
	} {
		t.Run(style.name, func(t *testing.T) {
			p := newPool(t, pool.WithWorkers(2))
			var mu sync.Mutex
			bStarted := make(chan struct{})
			otherQueued := make(chan struct{})
			otherDone := make(chan struct{})
			testutil.Watchdog(t, isolateLimit, func() {
				go func() {
					<-bStarted
					p.Spawn(func() {
						mu.Lock()
						defer mu.Unlock()
						close(otherDone)
					})
					close(otherQueued)
				}()
				p.Run(func() {
					mu.Lock()
					pool.Isolate(func() {
						style.fork(
							func() { <-otherQueued },
							func() { close(bStarted); time.Sleep(20 * time.Millisecond) },
						)
					})
					mu.Unlock()
				})
				<-otherDone
			})
		})
	}
}

// Regions fork trees on a pool that also runs a stream of unrelated
// tasks. A worker marks itself while it runs a region's code; an unrelated
// task that starts on a marked worker was started by an isolated wait.
// Every way of forking runs inside the regions.
func TestIsolatedWaitsRunOnlyTheRegionsTasks(t *testing.T) {
	testutil.NeedTwoPs(t)
	const workers, regions, depth = 4, 6, 9
	var inRegion [workers + pool.DefaultSpares]atomic.Int32 // spares included
	// enter marks the current worker as running a region's code until the
	// function it returns is called.
	enter := func() func() {
		me := &inRegion[pool.WorkerIndex()]
		me.Add(1)
		return func() { me.Add(-1) }
	}
	kinds := []struct {
		name string
		walk func(d int, leaf func()) // runs 1<<d leaves, marking every task
	}{
		{"Join", func(d int, leaf func()) { forkTree(d, leaf, enter, pool.Join) }},
		{"Scope", func(d int, leaf func()) {
			pool.Current().Scope(func(s *pool.Scope) {
				var tree func(s *pool.Scope, d int)
				tree = func(s *pool.Scope, d int) {
					defer enter()()
					if d == 0 {
						leaf()
						return
					}
					s.Spawn(func(s *pool.Scope) { tree(s, d-1) })
					s.Spawn(func(s *pool.Scope) { tree(s, d-1) })
				}
				tree(s, d)
			})
		}},
		{"Group", func(d int, leaf func()) {
			g, _ := pool.Current().NewGroup(context.Background())
			var tree func(d int)
			tree = func(d int) {
				defer enter()()
				if d == 0 {
					leaf()
					return
				}
				for range 2 {
					g.Go(func() error { tree(d - 1); return nil })
				}
			}
			tree(d)
			_ = g.Wait()
		}},
		{"forkjoin.For", func(d int, leaf func()) {
			forkjoin.For(0, 1<<d, 1, func(lo, hi int) {
				defer enter()()
				for range hi - lo {
					leaf()
				}
			})
		}},
		{"nested Isolate", func(d int, leaf func()) {
			forkTree(d, leaf, enter, func(a, b func()) { pool.Isolate(func() { pool.Join(a, b) }) })
		}},
	}
	for _, kind := range kinds {
		t.Run(kind.name, func(t *testing.T) {
			// No guests: the regions run on the workers, beside the
			// unrelated tasks (a guest would keep its region on its
			// caller, while the unrelated tasks wait for a P).
			p := newPool(t, pool.WithWorkers(workers), pool.WithGuests(0))
			var foreignInside, unrelatedRan atomic.Int64
			var leaves [regions]atomic.Int64
			testutil.Watchdog(t, isolateLimit, func() {
				stop := make(chan struct{})
				feederDone := make(chan struct{})
				go func() { // the unrelated work
					defer close(feederDone)
					for {
						select {
						case <-stop:
							return
						default:
						}
						for range 16 {
							p.Spawn(func() {
								if inRegion[pool.WorkerIndex()].Load() > 0 {
									foreignInside.Add(1)
								}
								unrelatedRan.Add(1)
								testutil.Burn(500)
							})
						}
						time.Sleep(50 * time.Microsecond)
					}
				}()
				var wg sync.WaitGroup
				for r := range regions {
					wg.Add(1)
					go func() {
						defer wg.Done()
						leaf := func() { testutil.Burn(2000); leaves[r].Add(1) }
						p.Run(func() { pool.Isolate(func() { kind.walk(depth, leaf) }) })
					}()
				}
				wg.Wait()
				// The regions may all end before a worker is free for the
				// unrelated work (every worker in a region takes none): let
				// some of it run before stopping, so that the check below
				// has something to check.
				for unrelatedRan.Load() == 0 {
					time.Sleep(50 * time.Microsecond)
				}
				close(stop)
				<-feederDone
			})
			for r := range regions {
				assert.Equal(t, int64(1)<<depth, leaves[r].Load(), "region %d", r)
			}
			assert.Zero(t, foreignInside.Load(), "unrelated tasks started inside a region")
			assert.Positive(t, unrelatedRan.Load())
		})
	}
}

// forkTree runs 1<<d leaves by forking with fork at every level; each
// call marks its worker with enter while it runs.
func forkTree(d int, leaf func(), enter func() func(), fork func(a, b func())) {
	defer enter()()
	if d == 0 {
		leaf()
		return
	}
	fork(func() { forkTree(d-1, leaf, enter, fork) }, func() { forkTree(d-1, leaf, enter, fork) })
}

func TestIsolateOffThePoolCallsF(t *testing.T) {
	ran := false
	pool.Isolate(func() { ran = true })
	assert.True(t, ran)
	assert.PanicsWithValue(t, "pool.Isolate: nil function", func() { pool.Isolate(nil) })
}

// A region's tasks that it does not wait for outlive it and still run,
// once each, on workers outside any region; and the priority a region
// asks for does not keep its own wait from running what it spawned.
func TestARegionsTasksOutliveIt(t *testing.T) {
	p := newClosablePool(t, pool.WithWorkers(2))
	var detached, scoped, urgent atomic.Int32
	watchdog(t, func() {
		p.Scope(func(outer *pool.Scope) {
			pool.Isolate(func() {
				for range 10 {
					pool.Spawn(func() { detached.Add(1) })
					outer.Spawn(func(*pool.Scope) { scoped.Add(1) })
				}
				pool.Current().Scope(func(s *pool.Scope) {
					for range 10 {
						s.SpawnPriority(pool.MaxPriority, func(*pool.Scope) { urgent.Add(1) })
					}
				})
				assert.Equal(t, int32(10), urgent.Load())
			})
		})
		assert.Equal(t, int32(10), scoped.Load())
		require.NoError(t, p.Close())
	})
	assert.Equal(t, int32(10), detached.Load())
}

// A task spawned inside a region for nobody in the region to wait for (a
// detached task, or one of a scope or group made outside the region)
// commonly takes the lock the region's caller holds. The region's waits
// must never run it: here the stolen half spawns it, and the worker that
// holds the lock waits for that half.
func TestARegionsWaitsDoNotRunTasksItDoesNotWaitFor(t *testing.T) {
	testutil.NeedTwoPs(t)
	const rounds = 20
	for _, spawner := range []struct {
		name string
		run  func(p *pool.Pool, region func(spawn func(func())))
	}{
		{"pool.Spawn", func(p *pool.Pool, region func(func(func()))) {
			p.Run(func() { region(pool.Spawn) })
		}},
		{"outer Scope.Spawn", func(p *pool.Pool, region func(func(func()))) {
			p.Scope(func(s *pool.Scope) {
				region(func(f func()) { s.Spawn(func(*pool.Scope) { f() }) })
			})
		}},
		{"outer Group.Go", func(p *pool.Pool, region func(func(func()))) {
			p.Run(func() {
				var g pool.Group
				g.Go(func() error { return nil }) // the group is made here, outside the region
				region(func(f func()) { g.Go(func() error { f(); return nil }) })
				_ = g.Wait()
			})
		}},
	} {
		t.Run(spawner.name, func(t *testing.T) {
			p := newClosablePool(t, pool.WithWorkers(2))
			var mu sync.Mutex
			total := 0
			testutil.Watchdog(t, isolateLimit, func() {
				for range rounds {
					ran := make(chan struct{})
					spawner.run(p, func(spawn func(func())) {
						stolen := make(chan struct{})
						mu.Lock()
						pool.Isolate(func() {
							pool.Join(func() {
								// Most often the other worker steals the
								// second half meanwhile.
								select {
								case <-stolen:
								case <-time.After(20 * time.Millisecond):
								}
							}, func() {
								close(stolen)
								spawn(func() { mu.Lock(); total++; mu.Unlock(); close(ran) })
								spin(2 * time.Millisecond)
							})
						})
						mu.Unlock()
					})
					<-ran // the other worker is free again for the next round
				}
				require.NoError(t, p.Close())
			})
			mu.Lock()
			defer mu.Unlock()
			assert.Equal(t, rounds, total)
		})
	}
}

// A region's wait reaches the region's queued jobs although a fork made
// before the region is still private on the worker: a wait publishes the
// worker's private forks, but not one of another context, which would land
// on top of the region's jobs, where the region's own waits could not pop
// them. One worker, so nobody else could run them: the future's wait hung
// when the outer fork was published.
func TestARegionsWaitReachesItsJobsUnderAnOuterPrivateFork(t *testing.T) {
	p := newPool(t, pool.WithWorkers(1))
	watchdog(t, func() {
		var got int
		p.Run(func() {
			pool.Join(func() { // its second half is published: the deque was empty
				pool.Join(func() { // kept private: a job is exposed, nobody looks
					pool.Isolate(func() {
						got = pool.Submit(p, func() int { return 1 }).Wait()
						p.Scope(func(s *pool.Scope) {
							for range 4 {
								s.Spawn(func(*pool.Scope) { pool.Join(func() {}, func() {}) })
							}
						})
					})
				}, func() {})
			}, func() {})
		})
		assert.Equal(t, 1, got)
	})
}

// TestLockAcrossAForkInManyTasks is the program in which a lock held
// across a fork hangs a plain pool: many tasks of one SpawnMany each lock
// one mutex, fork inside it and unlock. A plain wait for the stolen half
// runs a sibling task on top of the frame that holds the lock, and the
// sibling waits for that lock forever (so do the spares started for it).
// With the fork isolated, as the guide's section on locks says, it always
// finishes.
func TestLockAcrossAForkInManyTasks(t *testing.T) {
	const tasks = 500
	for _, workers := range []int{1, 2} {
		t.Run(fmt.Sprintf("workers=%d", workers), func(t *testing.T) {
			p := newPool(t, pool.WithWorkers(workers))
			var mu sync.Mutex
			var held atomic.Int64 // tasks that ran their fork under the lock
			testutil.Watchdog(t, isolateLimit, func() {
				p.Scope(func(s *pool.Scope) {
					s.SpawnMany(tasks, func(*pool.Scope, int) {
						mu.Lock()
						defer mu.Unlock()
						pool.Isolate(func() {
							pool.Join(func() { spin(200 * time.Microsecond) },
								func() { spin(200 * time.Microsecond) })
						})
						held.Add(1)
					})
				})
			})
			assert.Equal(t, int64(tasks), held.Load())
		})
	}
}
