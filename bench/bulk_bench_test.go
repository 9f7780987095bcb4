package bench

import (
	"flag"
	"sync"
	"testing"

	"github.com/spindle-go/spindle/forkjoin"
	"github.com/spindle-go/spindle/internal/experiment"
	"github.com/spindle-go/spindle/pool"
)

var (
	bulkN    = flag.Int("bulkn", 100_000, "BenchmarkBulkSpawn: number of tasks")
	bulkWork = flag.Int("bulkwork", 200, "BenchmarkBulkSpawn: xorshift rounds per task (about 1 ns each)")
)

// bulkTask is one small task of BenchmarkBulkSpawn: rounds of xorshift on
// its index, written to its slot.
func bulkTask(out []uint64, i, rounds int) {
	x := uint64(i) | 1
	for range rounds {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	out[i] = x
}

// BenchmarkBulkSpawn spawns -bulkn small independent tasks from one task
// and waits for them, the case bulk operations are for:
//
//   - serial: a loop.
//   - spawn-loop: Scope.Spawn per task on the default pool (Chase-Lev;
//     every spawn is published, thieves take one task per steal).
//   - spawn-loop-eager: the same on experiment.DequeChaseLevEager.
//   - spawn-loop-steal-half: the same on experiment.DequeBulk, whose thieves take
//     half of the victim's tasks (up to 64) per steal.
//   - spawn-many: one Scope.SpawnMany (one publication; runners hand half
//     of what is left to idle workers).
//   - for: forkjoin.For with grain 1 (a bulk spawn of one chunk per task).
//   - goroutines: a goroutine per task and a sync.WaitGroup.
//
// It reports steals per op (jobs taken from other workers) beside time.
//
//	go test -run '^$' -bench BulkSpawn -count 6 ./bench
func BenchmarkBulkSpawn(b *testing.B) {
	n, rounds := *bulkN, *bulkWork
	out := make([]uint64, n)
	f := newFamily(b)
	f.serial("serial", func(b *testing.B) {
		for b.Loop() {
			for i := range n {
				bulkTask(out, i, rounds)
			}
		}
	})
	spawnLoop := func(p *pool.Pool) {
		p.Scope(func(s *pool.Scope) {
			for i := range n {
				s.Spawn(func(*pool.Scope) { bulkTask(out, i, rounds) })
			}
		})
	}
	spawnMany := func(p *pool.Pool) {
		p.Scope(func(s *pool.Scope) {
			s.SpawnMany(n, func(_ *pool.Scope, i int) { bulkTask(out, i, rounds) })
		})
	}
	forLoop := func(p *pool.Pool) {
		p.Run(func() {
			forkjoin.For(0, n, 1, func(lo, hi int) {
				for i := lo; i < hi; i++ {
					bulkTask(out, i, rounds)
				}
			})
		})
	}
	variants := []struct {
		name string
		run  func(p *pool.Pool)
		opts []pool.Option
	}{
		{"spawn-loop", spawnLoop, nil},
		{"spawn-loop-eager", spawnLoop, []pool.Option{experiment.WithDeque(experiment.DequeChaseLevEager)}},
		{"spawn-loop-steal-half", spawnLoop, []pool.Option{experiment.WithDeque(experiment.DequeBulk)}},
		{"spawn-many", spawnMany, nil},
		{"for", forLoop, nil},
	}
	for _, w := range benchWorkers {
		for _, v := range variants {
			f.run(v.name, w, func(b *testing.B) {
				onPool(b, w, func(p *pool.Pool) {
					before := p.Stats().Steals
					for b.Loop() {
						v.run(p)
					}
					b.ReportMetric(float64(p.Stats().Steals-before)/float64(b.N), "steals/op")
				}, v.opts...)
			})
		}
		f.run("goroutines", w, func(b *testing.B) {
			withProcs(w, func() {
				for b.Loop() {
					var wg sync.WaitGroup
					for i := range n {
						wg.Add(1)
						go func() {
							defer wg.Done()
							bulkTask(out, i, rounds)
						}()
					}
					wg.Wait()
				}
			})
		})
	}
}
