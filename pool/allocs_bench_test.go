package pool_test

import (
	"context"
	goruntime "runtime"
	"testing"

	"github.com/spindle-go/spindle/pool"
)

// BenchmarkTaskAllocs counts what each way of handing a task to a pool
// allocates of its own: each op hands over a batch of 64 tasks and waits
// for them (Scope, Group.Wait, Future.Wait, or Close's accounting for
// detached tasks), and allocs/task and B/task are the heap allocations
// per task, scope or group records included. The tasks' functions
// capture nothing, so every allocation counted is spindle's, except
// Submit's Future, which the caller keeps. "inside" hands the batch over
// from a task on the pool, "outside" from the benchmark's goroutine.
func BenchmarkTaskAllocs(b *testing.B) {
	const batch = 64
	p, err := pool.New(pool.WithWorkers(2))
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	scopeTask := func(*pool.Scope) {}
	manyTask := func(*pool.Scope, int) {}
	groupTask := func() error { return nil }
	valueTask := func() int { return 1 }
	detached := make(chan struct{}, batch)
	detachedTask := func() { detached <- struct{}{} }
	waitDetached := func() {
		for range batch {
			<-detached
		}
	}

	paths := []struct {
		name  string
		batch func() // hands over batch tasks and waits for them
	}{
		{"Scope.Spawn", func() {
			p.Scope(func(s *pool.Scope) {
				for range batch {
					s.Spawn(scopeTask)
				}
			})
		}},
		{"Scope.SpawnMany", func() { p.Scope(func(s *pool.Scope) { s.SpawnMany(batch, manyTask) }) }},
		{"Group.Go", func() {
			var g pool.Group
			for range batch {
				g.Go(groupTask)
			}
			_ = g.Wait()
		}},
		{"NewGroup+Group.Go", func() {
			g, _ := p.NewGroup(context.Background())
			for range batch {
				g.Go(groupTask)
			}
			_ = g.Wait()
		}},
		{"Pool.Spawn", func() {
			for range batch {
				p.Spawn(detachedTask)
			}
			pool.Block(waitDetached) // one Block per batch, on a worker
		}},
		{"Submit", func() {
			var fs [batch]*pool.Future[int]
			for i := range fs {
				fs[i] = pool.Submit(p, valueTask)
			}
			for _, f := range fs {
				f.Wait()
			}
		}},
		// A context that cannot end registers nothing; one that can
		// costs context.AfterFunc's registration per future.
		{"SubmitContext/Background", func() {
			var fs [batch]*pool.Future[int]
			for i := range fs {
				fs[i] = pool.SubmitContext(context.Background(), p, valueTask)
			}
			for _, f := range fs {
				f.Wait()
			}
		}},
		{"SubmitContext/WithCancel", func() {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var fs [batch]*pool.Future[int]
			for i := range fs {
				fs[i] = pool.SubmitContext(ctx, p, valueTask)
			}
			for _, f := range fs {
				f.Wait()
			}
		}},
	}
	for _, path := range paths {
		for _, where := range []string{"inside", "outside"} {
			b.Run("path="+path.name+"/"+where, func(b *testing.B) {
				run := path.batch
				if where == "inside" {
					run = func() { p.Run(func() { path.batch() }) }
				}
				run() // the workers' free lists are filled from here on
				var before, after goruntime.MemStats
				goruntime.ReadMemStats(&before)
				for b.Loop() {
					run()
				}
				goruntime.ReadMemStats(&after)
				tasks := float64(b.N * batch)
				b.ReportMetric(float64(after.Mallocs-before.Mallocs)/tasks, "allocs/task")
				b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/tasks, "B/task")
			})
		}
	}
}
