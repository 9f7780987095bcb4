package bench

import (
	"flag"
	"fmt"
	"testing"

	"github.com/spindle-go/spindle/internal/experiment"
	"github.com/spindle-go/spindle/pool"
)

var (
	prioTasks  = flag.Int("priotasks", 2000, "BenchmarkPriority: tasks per scenario")
	prioMicros = flag.Float64("priomicros", 20, "BenchmarkPriority: busy work per task, in microseconds (the mean for scenario=random)")
)

// BenchmarkPriority runs the priority scenarios (PriorityScenarios: equal,
// random, skewed, unequal, bulk) of -priotasks tasks of -priomicros µs
// under every policy (oblivious, scan-all, sample, strict) on pools of 1
// and 2 workers, as scenario=NAME/policy=NAME/workers=K. Besides ns/op
// (the scenario's wall time, with the call into the pool) it reports the
// means per run of high-ms (when the last task of level pool.MaxPriority
// finished), high/total (that over the scenario's time) and inversions
// (Stats.Inversions during the run), and high-share, the share of the work
// in level-MaxPriority tasks, which high/total approaches with perfect
// priorities.
func BenchmarkPriority(b *testing.B) {
	if *prioTasks < 0 || *prioMicros < 0 {
		b.Fatalf("-priotasks=%d -priomicros=%g: want >= 0", *prioTasks, *prioMicros)
	}
	for _, sc := range PriorityScenarios(*prioTasks, *prioMicros, Seed) {
		for _, pol := range PriorityPolicies {
			for _, w := range benchWorkers {
				name := fmt.Sprintf("scenario=%s/policy=%s/workers=%d", sc.Name, pol, w)
				b.Run(name, func(b *testing.B) {
					onPool(b, w, func(p *pool.Pool) {
						var high, ratio float64
						var inv uint64
						n := 0
						for b.Loop() {
							r, err := RunPriority(p, sc)
							if err != nil {
								b.Fatal(err)
							}
							high += Ms(r.High)
							ratio += r.HighRatio()
							inv += r.Inversions
							n++
						}
						b.ReportMetric(high/float64(n), "high-ms")
						b.ReportMetric(ratio/float64(n), "high/total")
						b.ReportMetric(float64(inv)/float64(n), "inversions")
						b.ReportMetric(sc.HighShare(), "high-share")
					}, experiment.WithPriorityPolicy(pol))
				})
			}
		}
	}
}

// TestPriorityScenarios runs small versions of the scenarios under every
// policy and checks that every task runs once and that the results are
// consistent; it asserts nothing about timing.
func TestPriorityScenarios(t *testing.T) {
	scs := PriorityScenarios(200, 2, Seed)
	if len(scs) != 5 {
		t.Fatalf("%d scenarios, want 5", len(scs))
	}
	for _, sc := range scs {
		if len(sc.Tasks) != 200 {
			t.Fatalf("%s: %d tasks", sc.Name, len(sc.Tasks))
		}
		sum := 0
		for _, n := range sc.Spawners {
			sum += n
		}
		if sum != 200 {
			t.Fatalf("%s: spawners spawn %d tasks, want 200", sc.Name, sum)
		}
		if lv := sc.Levels(); lv[pool.MaxPriority] == 0 || lv[0] == 0 {
			t.Fatalf("%s: levels %v", sc.Name, lv)
		}
	}
	if got := scs[3].Spawners; got[0] <= got[1] || got[1] <= got[2] || got[2] <= got[3] {
		t.Errorf("unequal spawners %v, want decreasing", got)
	}
	// The same seed gives the same scenarios.
	again := PriorityScenarios(200, 2, Seed)
	for i := range scs {
		for j, task := range scs[i].Tasks {
			if again[i].Tasks[j].Level != task.Level {
				t.Fatalf("%s: task %d has level %d, then %d", scs[i].Name, j, task.Level, again[i].Tasks[j].Level)
			}
		}
	}
	for _, pol := range PriorityPolicies {
		for _, w := range []int{1, 2} {
			p, err := pool.New(pool.WithWorkers(w), experiment.WithPriorityPolicy(pol))
			if err != nil {
				t.Fatal(err)
			}
			for _, sc := range scs {
				r, err := RunPriority(p, sc)
				if err != nil {
					t.Errorf("%s/%s/%d: %v", sc.Name, pol, w, err)
					continue
				}
				if r.High <= 0 || r.High > r.Total {
					t.Errorf("%s/%s/%d: high %v, total %v", sc.Name, pol, w, r.High, r.Total)
				}
				if pol == pool.PriorityStrict && r.Inversions != 0 {
					// Strict refuses every start it would count.
					t.Errorf("%s/strict/%d: %d inversions", sc.Name, w, r.Inversions)
				}
			}
			if err := p.Close(); err != nil {
				t.Error(err)
			}
		}
	}
}
