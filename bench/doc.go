// Package bench holds the workloads that compare spindle with serial code,
// goroutines and other fork-join helpers, and the benchmarks that run them.
//
// # Workloads
//
// The two workloads are those of the fork-join peers (../shared/peers:
// Rayon, oneTBB, OpenMP, Java's ForkJoinPool and Go baselines):
//
//   - fib(n) by double recursion, forking at every level down to n < 2
//     (fib(32) makes about 3.5 million forks). It measures the cost of a
//     fork. Kernels: FibSerial, FibCall (forkjoin.Call), FibJoin
//     (pool.Join), FibWaitGroup (a goroutine and a sync.WaitGroup per
//     fork), FibErrgroup (golang.org/x/sync/errgroup), FibConc
//     (github.com/sourcegraph/conc); FibExpected checks the result.
//   - quicksort of int64 values filled from xorshift64 (Fill, seed Seed):
//     median-of-three Hoare partition (Partition), insertion sort below a
//     cutoff (InsertionSort, default DefaultCutoff = 32), both halves of
//     every partition forked. Kernels: QuicksortSerial, QuicksortDo
//     (forkjoin.Do on the two subslices), QuicksortJoin, QuicksortWaitGroup,
//     QuicksortErrgroup, QuicksortConc; Check verifies the order and the
//     wrapping sum.
//
// The spindle kernels fork on the pool of the worker that calls them, so
// run them inside Pool.Run of the pool to measure; from other goroutines
// they use pool.Default(). The goroutine kernels use GOMAXPROCS threads.
//
// # Benchmarks
//
//	go test -run '^$' -bench . -benchtime 5x -count 6 ./bench | tee new.txt
//	benchstat new.txt
//
// BenchmarkFib (n=25 by default, -fibn to change), BenchmarkQuicksort
// (1<<20 elements by default, -qsn=10000000 for the peers' size, -cutoff)
// and BenchmarkSort (forkjoin.Sort against slices.Sort, -sortn) have
// sub-benchmarks named impl=NAME/workers=K: spindle pools are created with
// pool.WithWorkers(K), the goroutine variants run with GOMAXPROCS set to K.
// Each reports ns/op, allocs/op and x-serial, its time over the time of
// the family's serial sub-benchmark (impl=serial, or impl=slices.Sort for
// BenchmarkSort), which runs first in the same process; a -bench pattern
// that skips it drops x-serial. Pass the flags
// after the package: go test -bench Quicksort ./bench -qsn=10000000.
//
// # Commands
//
// go run ./examples/fib and go run ./examples/quicksort print a table of
// serial, spindle at 1..N workers and goroutines with the ratio to serial.
//
// bench/cmd/peers prints rows in the peers' format (go-spindle-call fib,
// go-spindle-join fib, go-spindle-do quicksort) for the peers' run.sh,
// which compares go-* rows with its go-serial row. run.sh changes to its
// own directory and runs EXTRA once per thread count, so build the command
// first and pass its absolute path:
//
//	go build -o /tmp/spindle-peers ./bench/cmd/peers &&
//		EXTRA=/tmp/spindle-peers LANGS=go ../shared/peers/run.sh
//
// INSTALL=0 skips run.sh's apt-get step, which the Go rows do not need.
// run.sh writes results/ and go/peers-go inside ../shared/peers, whose
// directories are read-only (mode r-x): that works as root only.
// The command reads THREADS, FIB_N, QS_N, CUTOFF, REPS and WARMUP from the
// environment with the peers' defaults and can be run alone:
//
//	THREADS=2 FIB_N=20 QS_N=100000 REPS=1 WARMUP=0 go run ./bench/cmd/peers
package bench
