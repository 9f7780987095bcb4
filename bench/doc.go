// Package bench holds the workloads that compare spindle with serial code,
// goroutines and other fork-join helpers, and the benchmarks that run them.
//
// bench is a module of its own (github.com/spindle-go/spindle/bench), so
// that what it needs (gonum/plot for the charts, conc and x/sync for the
// baselines) stays out of the library's requirements. Its go.mod replaces
// spindle with the checkout it sits in, and the repository's go.work lets
// the commands below run from the repository's root.
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
// The peers' engage workload measures how soon an idle pool has every
// worker going: Engage and EngageTrial hand P leaves of spinning to an
// idle pool of P workers in each of EngageStyles (forkjoin.For grain 1, a
// forkjoin.Do tree, Scope.Spawn, Scope.SpawnMany, Group.Go) and time when
// each leaf starts. BenchmarkEngage (-engageleaf, -engageidle) runs them at
// 2, 4 and 8 workers; bench/cmd/peers prints them as the peers' engage
// rows.
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
// # Layout
//
// The package itself holds the workloads and their benchmarks; beside it,
// by purpose:
//
//   - cmd/: benchmark commands (fibbench, quicksortbench, prioritybench,
//     and peers, spindle's rows for the peers' table);
//   - reliability/soak: the soak, every API family called at random with
//     its results checked, and mutants that show the checks can fail;
//   - tools/: chart, which draws the peers' charts, and scale, the
//     work-span analysis's predicted curves;
//   - papers/: reproductions of published experiments (dequebench: the
//     deque microbenchmark of the BWoS work, Wang et al., OSDI 2023).
//
// # Commands
//
// go run ./cmd/fibbench and go run ./cmd/quicksortbench (from bench/)
// print a table of serial, spindle at 1..N workers and goroutines with the
// ratio to serial.
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
//
// # Futures and the central-queue baseline
//
// ThreadPool is the basic thread pool of textbooks, as a baseline for
// spindle's futures: N goroutines share one FIFO queue behind one mutex,
// and Submit returns a future. Such a pool deadlocks on nested waits once
// every worker waits for a task still in the queue, so its Future.Wait
// runs queued tasks while it waits, taking its own task back first if it
// is still the newest queued; without that trick it cannot run fib at
// all. Kernels: FibThreadPool and QuicksortThreadPool on it, FibSubmit
// and QuicksortSubmit on pool.Submit and Future.Wait; both submit one
// half (fib(n-1), the left part), compute the other and wait.
// BenchmarkFibFutures (-fibn) and BenchmarkQuicksortFutures (-qsn,
// -cutoff) run them beside serial, pool.Join and forkjoin.Call or Do, on
// 1 and 2 workers (the ThreadPool with as many goroutines; the root task
// is started with Run, whose caller blocks and does not help).
//
//	go test -run '^$' -bench FibFutures -benchtime 1x -count 3 -benchmem ./bench -fibn=30
//	go test -run '^$' -bench QuicksortFutures -benchtime 1x -count 3 -benchmem ./bench -qsn=10000000
//
// On one worker the ThreadPool is the cheapest of the closure-based forks
// (an uncontended mutex and a slice, and its waiter takes its own task
// back); pool.Submit costs more per fork than Join because its task is
// always published on the deque, it counts itself in and out of the
// registry's counter of detached tasks that Close waits for, and
// completion swaps the future's state word. On two workers the central
// queue collapses on fib, every submit and take-back contending for the
// one lock. So futures are for tasks worth more than their cost: results
// that outlive the call that started them, waits in any order, select. For
// recursive forks, Join and above all forkjoin remain the tools.
//
// Measurements: docs/bench-notes.md in the repository (a run of both
// benchmarks with times, ratios to serial and allocations per fork).
//
// # Priorities and graph exploration
//
// The priority scenarios follow Joshi and Hegde's measurements of
// priority-aware work stealing (after Imam and Sarkar). PriorityScenarios
// builds five sets of -priotasks tasks (2000 by default), each a busy loop
// of Spin (xorshift rounds, no memory, no sleeping) calibrated to
// -priomicros µs (20 by default; SpinPerMicro times it once per process),
// with levels 0..pool.MaxPriority drawn from xorshift64 seeded with Seed,
// so that the same flags give the same tasks:
//
//   - equal: every task the same time, levels uniform.
//   - random: times uniform over (0, 2*micros], levels uniform.
//   - skewed: equal times, levels 0..3 in proportions 70/20/8/2%.
//   - unequal: the tasks of equal, but spawned by spawners of very
//     different shares (27:9:3:1), so one worker starts with most of them.
//   - bulk: the tasks of equal, each spawner spawning its share with one
//     Scope.SpawnManyPriority per level, level 0 first.
//
// RunPriority runs a scenario inside Pool.Run: the scope body spawns
// PrioritySpawners (4) spawner tasks at MaxPriority (so that all tasks are
// queued early), each of which spawns its share of the tasks from inside
// the pool, so they land on that worker's deques: one Scope.SpawnPriority
// per task in the order drawn, levels interleaved (not most urgent first,
// which would make priorities moot), or for bulk one SpawnManyPriority per
// level. Metrics: Total, the
// scope's wall time on the worker; High, the time from the same start
// until the last task of level MaxPriority finished; HighRatio =
// High/Total, to compare with the scenario's HighShare (the share of its
// work at MaxPriority, where HighRatio lands with perfect priorities and
// balance); and Inversions, the delta of Stats.Inversions (tasks started
// while a more urgent task was queued, where a worker could see it). The
// oblivious policy (experiment.PriorityOblivious) is the baseline: it queues every
// level as level 0.
//
// The graph exploration visits every node reachable from node 0 of a
// random directed graph (NewGraph: -graphn nodes, 1<<20 by default, in
// CSR form, out-degrees uniform over 0..2*-graphdeg, -graphhubs hubs of
// sqrt(n) out-edges including node 0, targets uniform; deterministic from
// the seed). Parallel kernels claim a node with a compare-and-swap on its
// flag and visit it once. Explorer kernels: Serial (depth first with a
// stack and plain flags: the baseline and the reference), Spawn (one
// Scope.Spawn per claimed node), SpawnMany (each node's task bulk-spawns
// the neighbours it claimed) and Goroutines (a stack per goroutine, a
// shared channel that busy goroutines feed while it runs low, an atomic
// count of claimed nodes not yet visited for termination). Every run is
// checked against the serial count and order-independent checksum;
// TestExplorers also checks node by node that each reachable node, and
// no other, is visited exactly once. -graphwork adds Spin rounds per
// visit.
//
//	go test -run '^$' -bench 'Priority|Graph' -benchtime 1x ./bench
//	go run ./bench/cmd/prioritybench -reps 5
//
// BenchmarkPriority's sub-benchmarks are
// scenario=NAME/policy=NAME/workers=K and report high-ms, high/total,
// high-share and inversions (means per run); BenchmarkGraph's are
// impl=serial|spawn|spawnmany|goroutines/workers=K with x-serial. The
// command prints both as markdown tables of medians (-reps, -warmup,
// -workers, -only priority|graph, -tasks, -micros, -nodes, -degree, -hubs,
// -work), one pool at a time: each row's runs back to back on a pool of
// its own (pools used alternately disturbed each other's runs on the test
// machine).
package bench
