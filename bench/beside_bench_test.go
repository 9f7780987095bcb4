package bench

import (
	"flag"
	"fmt"
	"testing"
	"time"
)

var besideWindow = flag.Duration("besidewindow", time.Second, "BenchmarkServerBeside: how long each round runs both endpoints")

// BenchmarkServerBeside is fairness beside ordinary goroutines
// (beside.go): for requests of 20k and 200k elements and 2 and 8 clients
// per endpoint, the goroutine-heavy endpoint runs beside each handler of
// ServerStyles in turn, in alternated rounds of -besidewindow each
// (b.N does not matter: run it with -benchtime 1x), and it reports each handler's median share of the requests (half is its
// share of the CPU), the process's median CPU use over its capacity, and
// spindle's share over the goroutine handler's (spindle-x-goroutines).
// docs/performance/server.md has its figures.
func BenchmarkServerBeside(b *testing.B) {
	for _, n := range []int{20_000, 200_000} {
		want := ServerRequest(0, n)
		for _, clients := range []int{2, 8} {
			b.Run(fmt.Sprintf("n=%d/clients=%d", n, clients), func(b *testing.B) {
				shares := make(map[string][]float64)
				used := make(map[string][]float64)
				for range *serverRounds {
					for _, st := range ServerStyles {
						run, ok := RunBeside(clients, *besideWindow, n, st.Serve, want)
						if !ok {
							b.Fatalf("%s: a wrong answer", st.Name)
						}
						shares[st.Name] = append(shares[st.Name], run.TestedShare())
						used[st.Name] = append(used[st.Name], run.CPUUsed)
					}
				}
				for _, st := range ServerStyles {
					b.ReportMetric(Median(shares[st.Name]), st.Name+"-share")
					b.ReportMetric(Median(used[st.Name]), st.Name+"-cpu-used")
				}
				b.ReportMetric(Median(shares["spindle"])/Median(shares["goroutines"]), "spindle-x-goroutines")
				b.ReportMetric(0, "ns/op")
			})
		}
	}
}
