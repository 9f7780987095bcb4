package bench

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	goruntime "runtime"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/spindle-go/spindle/forkjoin"
	"github.com/spindle-go/spindle/pool"
)

// groupTasks is the number of tasks of BenchmarkGroupTinyTasks: enough
// that a round's fixed costs (the group, the pool's wake-up) vanish in the
// time per task.
const groupTasks = 100_000

// tinyWork is a few nanoseconds of work, so that a task is about its
// overhead.
func tinyWork(x uint64) uint64 {
	for range 4 {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	return x
}

// tinySlot is one task's result, on a cache line of its own so that
// tasks on different workers do not share one.
type tinySlot struct {
	v uint64
	_ [56]byte
}

// BenchmarkGroupTinyTasks runs 100,000 tiny tasks (a few ns each, a closure
// per task) as impl=NAME/workers=K: group (Group.Go from a task and Wait
// on the worker), group-outside (Go and Wait from a goroutine that is no
// worker: every task is injected), spawn (Scope.Spawn, the engine's
// cheapest untyped task, for comparison), errgroup
// (golang.org/x/sync/errgroup at GOMAXPROCS = K), against a serial loop
// calling the same closures; closure-queue is the floor of queueing each
// task before it runs (the closures allocated into a slice, then called).
// Reports ns/task and x-serial.
func BenchmarkGroupTinyTasks(b *testing.B) {
	slots := make([]tinySlot, groupTasks)
	task := func(i int) { slots[i].v = tinyWork(uint64(i) + 1) }
	perTask := func(b *testing.B) {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/groupTasks, "ns/task")
	}
	fam := newFamily(b)
	fam.serial("serial", func(b *testing.B) {
		for b.Loop() {
			for i := range groupTasks {
				f := func() error { task(i); return nil }
				_ = f()
			}
		}
		perTask(b)
	})
	// The floor of any scheduler that queues every task before running
	// it: the closures allocated and kept in a queue, then called, on one
	// goroutine.
	fam.run("closure-queue", 1, func(b *testing.B) {
		queue := make([]func() error, 0, groupTasks)
		for b.Loop() {
			queue = queue[:0]
			for i := range groupTasks {
				queue = append(queue, func() error { task(i); return nil })
			}
			for k, f := range queue {
				_ = f()
				queue[k] = nil
			}
		}
		perTask(b)
	})
	for _, w := range benchWorkers {
		goruntime.GC()
		fam.run("group", w, func(b *testing.B) {
			withProcs(w, func() {
				onPool(b, w, func(p *pool.Pool) {
					for b.Loop() {
						p.Run(func() {
							var g pool.Group
							for i := range groupTasks {
								g.Go(func() error { task(i); return nil })
							}
							if err := g.Wait(); err != nil {
								b.Error(err)
							}
						})
					}
				})
			})
			perTask(b)
		})
		fam.run("group-outside", w, func(b *testing.B) {
			withProcs(w, func() {
				onPool(b, w, func(p *pool.Pool) {
					for b.Loop() {
						g, _ := p.NewGroup(context.Background())
						for i := range groupTasks {
							g.Go(func() error { task(i); return nil })
						}
						if err := g.Wait(); err != nil {
							b.Error(err)
						}
					}
				})
			})
			perTask(b)
		})
		fam.run("spawn", w, func(b *testing.B) {
			withProcs(w, func() {
				onPool(b, w, func(p *pool.Pool) {
					for b.Loop() {
						p.Scope(func(s *pool.Scope) {
							for i := range groupTasks {
								s.Spawn(func(*pool.Scope) { task(i) })
							}
						})
					}
				})
			})
			perTask(b)
		})
	}
	// errgroup last: its 100,000 goroutines leave a heap that slows
	// whatever runs next.
	for _, w := range benchWorkers {
		fam.run("errgroup", w, func(b *testing.B) {
			withProcs(w, func() {
				for b.Loop() {
					var g errgroup.Group
					for i := range groupTasks {
						g.Go(func() error { task(i); return nil })
					}
					if err := g.Wait(); err != nil {
						b.Error(err)
					}
				}
			})
			perTask(b)
		})
	}
}

var errFound = errors.New("found")

// BenchmarkEarlyExit measures how soon a parallel search over a
// million-element range returns after its answer turns up at the start
// (element 0), on 2 workers: us-after-error is the mean time from the
// failing body's return of the error to the call's return, and
// work-done% the share of the range's elements processed. Each element
// costs a few ns (tinyWork). impl: forerr (ForErr, default grain, bodies
// that do not look at their context), forerr-ctx (the same, bodies that
// check ctx.Err() every 1024 elements), forerr-grain1k (grain 1000),
// maperr (MapErr, which checks before every element), group (a Group.Go
// per 1000-element chunk).
func BenchmarkEarlyExit(b *testing.B) {
	const n = 1_000_000
	const workers = 2
	in := make([]uint64, n)
	for i := range in {
		in[i] = uint64(i)
	}
	var failedAt atomic.Int64 // time.Now().UnixNano() when the error was returned
	seen := make([]bool, n)   // the elements processed (only chunk edges share lines)
	var sink atomic.Uint64
	fail := func() error {
		failedAt.Store(time.Now().UnixNano())
		return errFound
	}
	element := func(i int) uint64 {
		seen[i] = true
		return tinyWork(in[i])
	}
	chunk := func(ctx context.Context, lo, hi int, checkCtx bool) error {
		var acc uint64
		defer func() { sink.Add(acc) }()
		for i := lo; i < hi; i++ {
			if i == 0 {
				return fail()
			}
			if checkCtx && i%1024 == 0 && ctx.Err() != nil {
				return ctx.Err()
			}
			acc += element(i)
		}
		return nil
	}
	searches := []struct {
		name string
		run  func(ctx context.Context) error
	}{
		{"forerr", func(ctx context.Context) error {
			return forkjoin.ForErr(ctx, 0, n, 0, func(ctx context.Context, lo, hi int) error { return chunk(ctx, lo, hi, false) })
		}},
		{"forerr-ctx", func(ctx context.Context) error {
			return forkjoin.ForErr(ctx, 0, n, 0, func(ctx context.Context, lo, hi int) error { return chunk(ctx, lo, hi, true) })
		}},
		{"forerr-grain1k", func(ctx context.Context) error {
			return forkjoin.ForErr(ctx, 0, n, 1000, func(ctx context.Context, lo, hi int) error { return chunk(ctx, lo, hi, false) })
		}},
		{"maperr", func(ctx context.Context) error {
			_, err := forkjoin.MapErr(ctx, in, func(ctx context.Context, x uint64) (uint64, error) {
				if x == 0 {
					return 0, fail()
				}
				return element(int(x)), nil
			})
			return err
		}},
		{"group", func(ctx context.Context) error {
			g, gctx := pool.NewGroup(ctx)
			for lo := 0; lo < n; lo += 1000 {
				g.Go(func() error { return chunk(gctx, lo, lo+1000, false) })
			}
			return g.Wait()
		}},
	}
	for _, s := range searches {
		b.Run("impl="+s.name+"/workers=2", func(b *testing.B) {
			withProcs(workers, func() {
				onPool(b, workers, func(p *pool.Pool) {
					var after, worst time.Duration
					processed := 0
					for b.Loop() {
						clear(seen)
						var err error
						p.Run(func() { err = s.run(context.Background()) })
						d := time.Duration(time.Now().UnixNano() - failedAt.Load())
						after += d
						worst = max(worst, d)
						if err != errFound {
							b.Fatalf("err = %v, want %v", err, errFound)
						}
						for _, ok := range seen {
							if ok {
								processed++
							}
						}
					}
					b.ReportMetric(float64(after.Microseconds())/float64(b.N), "us-after-error")
					b.ReportMetric(float64(worst.Microseconds()), "us-after-error-max")
					b.ReportMetric(100*float64(processed)/float64(b.N)/n, "work-done%")
				})
			})
		})
	}
}

// limitTasks and limitWork are BenchmarkGroupLimitFromGoroutine's shape:
// an errgroup program ported unchanged, 12,000 tasks of about 2 us each
// (SHA-256 of 4 KB) under SetLimit(8).
const (
	limitTasks = 12_000
	limitWidth = 8
)

// BenchmarkGroupLimitFromGoroutine is an errgroup program with a limit,
// ported unchanged: a goroutine that is no worker calls Go 12,000 times
// under SetLimit(8), each task hashing 4 KB (SHA-256), then Wait;
// golang.org/x/sync/errgroup against pool.Group on the default pool, in
// blocks that take turns (againstErrgroup).
func BenchmarkGroupLimitFromGoroutine(b *testing.B) {
	data := make([]byte, 4096)
	for i := range data {
		data[i] = byte(i * 7)
	}
	sums := make([]tinySlot, limitTasks)
	hash := func(i int) error {
		h := sha256.Sum256(data)
		sums[i].v = uint64(h[0]) + uint64(i)
		return nil
	}
	againstErrgroup(b, func() error {
		var g errgroup.Group
		g.SetLimit(limitWidth)
		for i := range limitTasks {
			g.Go(func() error { return hash(i) })
		}
		return g.Wait()
	}, func() error {
		g, _ := pool.Default().NewGroup(context.Background())
		g.SetLimit(limitWidth)
		for i := range limitTasks {
			g.Go(func() error { return hash(i) })
		}
		return g.Wait()
	})
}

// againstErrgroup runs an errgroup program and its port to pool.Group in
// one process, in blocks that take turns (who goes first alternates): an
// iteration is one block of each, blockRuns runs in a row, as a program
// would make them. The first run of a block is not timed: an errgroup
// program's first run after a pause or other work is its slow one, and
// taking turns run by run measured errgroup's warm-up. Blocks, not each
// side's runs all in a row, so that both see the machine as it drifts
// (errgroup's own time moved by 10% between the counts of one process).
// It reports each side's median ms per run over the blocks and
// x-errgroup, the median over the blocks of the port's time over
// errgroup's in the same iteration.
func againstErrgroup(b *testing.B, errgroupRun, groupRun func() error) {
	const blockRuns = 12
	block := func(run func() error) float64 {
		if err := run(); err != nil { // the untimed first run
			b.Fatal(err)
		}
		start := time.Now()
		for range blockRuns - 1 {
			if err := run(); err != nil {
				b.Fatal(err)
			}
		}
		return float64(time.Since(start).Nanoseconds()) / (blockRuns - 1) / 1e6
	}
	var errgroupMs, groupMs, ratios []float64
	for b.Loop() {
		var e, g float64
		if len(ratios)%2 == 0 {
			e, g = block(errgroupRun), block(groupRun)
		} else {
			g, e = block(groupRun), block(errgroupRun)
		}
		errgroupMs, groupMs, ratios = append(errgroupMs, e), append(groupMs, g), append(ratios, g/e)
	}
	b.ReportMetric(Median(errgroupMs), "errgroup-ms/run")
	b.ReportMetric(Median(groupMs), "group-ms/run")
	b.ReportMetric(Median(ratios), "x-errgroup")
}

// BenchmarkGroupLimitSleeps is an I/O-bound fan-out from a goroutine
// under a limit: 16 tasks that each sleep 5 ms (a request), at limits 2,
// 4 and 8, errgroup against pool.Group in the same process. A limit must
// keep its slots full as errgroup's does: the caller waiting for a slot
// must not sit in a task that sleeps while slots are free.
func BenchmarkGroupLimitSleeps(b *testing.B) {
	const tasks, wait = 16, 5 * time.Millisecond
	for _, limit := range []int{2, 4, 8} {
		b.Run(fmt.Sprintf("limit=%d", limit), func(b *testing.B) {
			againstErrgroup(b, func() error {
				var g errgroup.Group
				g.SetLimit(limit)
				for range tasks {
					g.Go(func() error { time.Sleep(wait); return nil })
				}
				return g.Wait()
			}, func() error {
				g, _ := pool.Default().NewGroup(context.Background())
				g.SetLimit(limit)
				for range tasks {
					g.Go(func() error { time.Sleep(wait); return nil })
				}
				return g.Wait()
			})
		})
	}
}
