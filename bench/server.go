package bench

import (
	"runtime"
	"runtime/metrics"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spindle-go/spindle/forkjoin"
)

// A server's callers: client goroutines send requests back to back, each
// a CPU-bound map-reduce over n elements, and the server answers each on
// the client's goroutine, the way a request handler runs. ServerStyles
// are the ways a handler can compute a request.

// ServerRequest returns the answer to a request over [lo, hi): the sum
// of mix(i) for i in [lo, hi), mix being a few multiplies and shifts, so
// that every element costs the same and nothing is allocated.
func ServerRequest(lo, hi int) uint64 {
	var s uint64
	for i := lo; i < hi; i++ {
		x := uint64(i) * 0x9E3779B97F4A7C15
		x ^= x >> 29
		x *= 0xBF58476D1CE4E5B9
		x ^= x >> 32
		s += x
	}
	return s
}

// ServerStyle computes one request of n elements.
type ServerStyle struct {
	Name  string
	Serve func(n int) uint64
}

// serverGrain is the smallest piece a parallel handler hands out: enough
// elements that a fork is a small part of a piece's cost.
const serverGrain = 4096

// ServerStyles are the handlers compared: serial on the client's
// goroutine; a fan-out over GOMAXPROCS goroutines and a WaitGroup, as a Go
// programmer writes it; and forkjoin.Fold called from the client's
// goroutine, on the default pool (spindle), where the client runs its
// request as a guest of the pool.
var ServerStyles = []ServerStyle{
	{"serial", func(n int) uint64 { return ServerRequest(0, n) }},
	{"goroutines", serveGoroutines},
	{"spindle", serveFold},
}

// serveFold is the spindle handler: forkjoin.Fold over the request.
func serveFold(n int) uint64 {
	return forkjoin.Fold(0, n, serverGrain,
		func() uint64 { return 0 },
		func(acc uint64, lo, hi int) uint64 { return acc + ServerRequest(lo, hi) },
		func(a, b uint64) uint64 { return a + b })
}

// serveGoroutines splits the request into up to GOMAXPROCS pieces of at
// least serverGrain elements, one goroutine each, the caller running the
// last one.
func serveGoroutines(n int) uint64 {
	parts := min(runtime.GOMAXPROCS(0), max(1, n/serverGrain))
	if parts == 1 {
		return ServerRequest(0, n)
	}
	sums := make([]paddedSum, parts)
	var wg sync.WaitGroup
	for p := range parts - 1 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sums[p].v = ServerRequest(p*n/parts, (p+1)*n/parts)
		}()
	}
	sums[parts-1].v = ServerRequest((parts-1)*n/parts, n)
	wg.Wait()
	var s uint64
	for _, x := range sums {
		s += x.v
	}
	return s
}

// paddedSum keeps each goroutine's result on a cache line of its own.
type paddedSum struct {
	v uint64
	_ [56]byte
}

// ServerRun is the outcome of RunServer: requests answered, the wall time
// they took, each request's latency, sorted, and the garbage collections
// that ended meanwhile (the collector's cycles hold requests: a handler's
// allocations pace them).
type ServerRun struct {
	Requests  int
	Elapsed   time.Duration
	Latencies []time.Duration
	GCCycles  uint64
}

// PerSecond is the throughput in requests per second.
func (r ServerRun) PerSecond() float64 { return float64(r.Requests) / r.Elapsed.Seconds() }

// Quantile returns the q-quantile of the latencies (0 <= q <= 1).
func (r ServerRun) Quantile(q float64) time.Duration {
	if len(r.Latencies) == 0 {
		return 0
	}
	return r.Latencies[min(len(r.Latencies)-1, int(q*float64(len(r.Latencies))))]
}

// Over returns how many requests took longer than d.
func (r ServerRun) Over(d time.Duration) int {
	i, _ := slices.BinarySearch(r.Latencies, d+1)
	return len(r.Latencies) - i
}

// RunServer has clients goroutines send requests of n elements back to
// back until requests have been answered, each answered by serve, and
// checks every answer against want. It returns the run, or ok false if an
// answer was wrong.
func RunServer(clients, requests, n int, serve func(n int) uint64, want uint64) (run ServerRun, ok bool) {
	var next atomic.Int64
	var wrong atomic.Bool
	lat := make([][]time.Duration, clients)
	var wg sync.WaitGroup
	cycles0 := gcCycles()
	start := time.Now()
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mine := make([]time.Duration, 0, requests/clients+1)
			for next.Add(1) <= int64(requests) {
				t0 := time.Now()
				if serve(n) != want {
					wrong.Store(true)
				}
				mine = append(mine, time.Since(t0))
			}
			lat[c] = mine
		}()
	}
	wg.Wait()
	run = ServerRun{Requests: requests, Elapsed: time.Since(start), GCCycles: gcCycles() - cycles0}
	for _, l := range lat {
		run.Latencies = append(run.Latencies, l...)
	}
	slices.Sort(run.Latencies)
	return run, !wrong.Load()
}

// gcCycles returns how many garbage collections have ended so far.
func gcCycles() uint64 {
	sample := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(sample)
	return sample[0].Value.Uint64()
}
