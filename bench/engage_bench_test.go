package bench

import (
	"flag"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/spindle-go/spindle/pool"
)

var (
	engageLeaf = flag.Duration("engageleaf", 500*time.Microsecond, "BenchmarkEngage: each leaf spins for this long (the peers' LEAF_US)")
	engageIdle = flag.Duration("engageidle", 20*time.Millisecond, "BenchmarkEngage: idle time before each trial (the peers' IDLE_MS)")
)

// engageWorkers are BenchmarkEngage's pool sizes. Above the machine's
// cores the workers are time-sliced by the OS, so those sub-benchmarks
// show the rule's reach, not many-core timings.
var engageWorkers = []int{2, 4, 8}

// BenchmarkEngage is the peers' engage workload (EngageTrial) as
// style=NAME/workers=P for every EngageStyle: each iteration sleeps
// -engageidle, then hands P leaves of -engageleaf to an idle pool of P
// workers, with GOMAXPROCS raised to P if it is lower (and restored
// after). EngageWarmups trials run before the timed loop. It reports the
// medians over the iterations of the first, middle ((P/2+1)th) and last
// leaf's start after the call (first_us, middle_us, last_us) and of the
// call's time minus one leaf (lost_us). ns/op includes the idle sleep,
// so it says little; the metrics are the result.
//
//	go test -run '^$' -bench Engage -benchtime 25x ./bench
func BenchmarkEngage(b *testing.B) {
	for _, st := range EngageStyles {
		for _, w := range engageWorkers {
			b.Run(fmt.Sprintf("style=%s/workers=%d", st.Name, w), func(b *testing.B) {
				withProcs(max(w, runtime.GOMAXPROCS(0)), func() {
					onPool(b, w, func(p *pool.Pool) {
						for range EngageWarmups {
							time.Sleep(*engageIdle)
							EngageTrial(p, st, w, *engageLeaf)
						}
						var s engageSamples
						for b.Loop() {
							time.Sleep(*engageIdle)
							s.add(EngageTrial(p, st, w, *engageLeaf))
						}
						m := s.median()
						us := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }
						b.ReportMetric(us(m.First), "first_us")
						b.ReportMetric(us(m.Middle), "middle_us")
						b.ReportMetric(us(m.Last), "last_us")
						b.ReportMetric(us(m.Lost), "lost_us")
					})
				})
			})
		}
	}
}
