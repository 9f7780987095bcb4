package bench

import (
	"flag"
	"fmt"
	"runtime"
	"testing"
	"time"
)

// serverLargest is BenchmarkServer's largest request, in elements.
const serverLargest = 200_000

var serverRounds = flag.Int("serverrounds", 3, "BenchmarkServer: alternated rounds of the three handlers per setting; each metric is the best (req/s) or median (latency) of them")

// BenchmarkServer is a server's callers (server.go): for requests of 20k
// and 200k elements and 1, 2, 8 and 64 clients, it
// runs the serial, goroutine and spindle handlers in alternated rounds in
// one process, each round b.N requests per handler, and reports each
// handler's best throughput (req/s), median p50 and p99 latencies (us),
// and its throughput over the best of serial and goroutines
// (x-best-other). Run it with -benchtime Nx: N requests of serverLargest
// elements per round, and as many elements' worth of the smaller
// requests, so that every round lasts about as long: in a short round one
// preemption or collection moves the round's throughput, and the best of
// a few such rounds says little (docs/performance/server.md has the
// figures).
//
// With more clients than Ps it also reports, per handler, the requests
// that took over 1 ms, per thousand (median of the rounds): the clients
// never block, so the Go scheduler preempts one every 10 ms or so, and a
// request in flight then waits behind the other clients' goroutines,
// often for the rest of the round, whatever the handler; when those are
// about 1% of the requests, p99 falls among them or not from one round
// to the next. Beside it, the garbage collections that ended during the
// rounds, per thousand requests (median): a collection holds requests
// too, and a handler's allocations set how often one comes.
// docs/performance/server.md has its figures and what a request costs.
func BenchmarkServer(b *testing.B) {
	for _, n := range []int{20_000, serverLargest} {
		want := ServerRequest(0, n)
		for _, clients := range []int{1, 2, 8, 64} {
			b.Run(fmt.Sprintf("n=%d/clients=%d", n, clients), func(b *testing.B) {
				requests := max(b.N*serverLargest/n, 2*clients)
				runs := make(map[string][]ServerRun)
				for range *serverRounds {
					for _, st := range ServerStyles {
						run, ok := RunServer(clients, requests, n, st.Serve, want)
						if !ok {
							b.Fatalf("%s: a wrong answer", st.Name)
						}
						runs[st.Name] = append(runs[st.Name], run)
					}
				}
				best := func(name string) float64 {
					var m float64
					for _, r := range runs[name] {
						m = max(m, r.PerSecond())
					}
					return m
				}
				other := max(best("serial"), best("goroutines"))
				for _, st := range ServerStyles {
					var p50, p99, held, gcs []float64
					for _, r := range runs[st.Name] {
						p50 = append(p50, float64(r.Quantile(0.5).Nanoseconds())/1e3)
						p99 = append(p99, float64(r.Quantile(0.99).Nanoseconds())/1e3)
						held = append(held, 1000*float64(r.Over(time.Millisecond))/float64(r.Requests))
						gcs = append(gcs, 1000*float64(r.GCCycles)/float64(r.Requests))
					}
					b.ReportMetric(best(st.Name), st.Name+"-req/s")
					b.ReportMetric(Median(p50), st.Name+"-p50-us")
					b.ReportMetric(Median(p99), st.Name+"-p99-us")
					if clients > runtime.GOMAXPROCS(0) {
						b.ReportMetric(Median(held), st.Name+"-over-1ms-permille")
						b.ReportMetric(Median(gcs), st.Name+"-gc-per-1000req")
					}
				}
				b.ReportMetric(best("spindle")/other, "spindle-x-best-other")
				b.ReportMetric(0, "ns/op")
			})
		}
	}
}
