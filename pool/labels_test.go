package pool_test

import (
	"context"
	"runtime/pprof"
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"

	"github.com/spindle-go/spindle/forkjoin"
	"github.com/spindle-go/spindle/pool"
)

// getProfLabel reads the calling goroutine's profiler labels, as
// runtime/pprof does (the engine reads them the same way: runtime's
// labels.go).
//
//go:linkname getProfLabel runtime/pprof.runtime_getProfLabel
func getProfLabel() unsafe.Pointer

// labelSeen records the labels each task ran with.
type labelSeen struct {
	mu   sync.Mutex
	seen []unsafe.Pointer
}

func (l *labelSeen) note() {
	p := getProfLabel()
	l.mu.Lock()
	l.seen = append(l.seen, p)
	l.mu.Unlock()
}

// TestTasksCarryTheSpawnersLabels: every kind of task runs with the
// profiler labels of the goroutine that started it (a handler inside
// pprof.Do), as a goroutine it started would, and the workers carry their
// own labels again afterwards. Without the labels, 0 of these tasks
// carried the caller's.
func TestTasksCarryTheSpawnersLabels(t *testing.T) {
	kinds := []struct {
		name string
		run  func(p *pool.Pool, l *labelSeen)
	}{
		{"Group.Go", func(p *pool.Pool, l *labelSeen) {
			g, _ := p.NewGroup(context.Background())
			for range 8 {
				g.Go(func() error { l.note(); return nil })
			}
			_ = g.Wait()
		}},
		{"Scope.Spawn", func(p *pool.Pool, l *labelSeen) {
			p.Scope(func(s *pool.Scope) {
				for range 8 {
					s.Spawn(func(*pool.Scope) { l.note() })
				}
			})
		}},
		{"forkjoin.Spawn", func(p *pool.Pool, l *labelSeen) {
			p.Scope(func(s *pool.Scope) {
				for i := range 8 {
					forkjoin.Spawn(s, func(_ *pool.Scope, _ int) { l.note() }, i)
				}
			})
		}},
		{"SpawnMany", func(p *pool.Pool, l *labelSeen) {
			p.Scope(func(s *pool.Scope) { s.SpawnMany(64, func(*pool.Scope, int) { l.note() }) })
		}},
		{"Pool.Spawn", func(p *pool.Pool, l *labelSeen) {
			var wg sync.WaitGroup
			wg.Add(4)
			for range 4 {
				p.Spawn(func() { l.note(); wg.Done() })
			}
			wg.Wait()
		}},
		{"Submit", func(p *pool.Pool, l *labelSeen) {
			pool.Submit(p, func() int { l.note(); return 1 }).Wait()
		}},
		{"stolen join halves", func(p *pool.Pool, l *labelSeen) {
			p.Run(func() {
				var started atomic.Bool
				pool.Join(func() {
					for !started.Load() { // forks so that the other half is published
						pool.Join(func() {}, func() {})
					}
					l.note()
				}, func() { started.Store(true); l.note() })
			})
		}},
		{"forkjoin.For", func(p *pool.Pool, l *labelSeen) {
			p.Run(func() { forkjoin.For(0, 64, 1, func(int, int) { l.note() }) })
		}},
	}
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			needTwoPs(t)
			// No guests: the test's calls run on the workers, whose own
			// labels it checks.
			p := newPool(t, pool.WithWorkers(2), pool.WithGuests(0))
			var own labelSeen
			p.Run(own.note) // from an unlabelled goroutine: the worker's own
			watchdog(t, func() {
				var l labelSeen
				var want unsafe.Pointer
				pprof.Do(context.Background(), pprof.Labels("endpoint", k.name), func(context.Context) {
					want = getProfLabel()
					k.run(p, &l)
				})
				assert.NotEmpty(t, l.seen)
				for i, got := range l.seen {
					assert.Equal(t, want, got, "task %d ran without its spawner's labels", i)
				}
				var after labelSeen
				p.Scope(func(s *pool.Scope) {
					for range 8 {
						s.Spawn(func(*pool.Scope) { after.note() })
					}
				})
				for _, got := range after.seen {
					assert.NotEqual(t, want, got, "a worker kept a task's labels")
					assert.NotNil(t, got, "a worker lost its own labels")
				}
			})
		})
	}
}
