// Package deque holds the work-stealing deques under spindle's workers.
//
// The runtime's is [ChaseLev]: the dynamic circular deque of Chase and
// Lev ("Dynamic Circular Work-Stealing Deque", SPAA 2005), with the memory
// orderings that Lê, Pop, Cohen and Zappa Nardelli proved correct for the
// C11 memory model ("Correct and Efficient Work-Stealing for Weak Memory
// Models", PPoPP 2013), carried over to Go. Four more from the literature
// sit next to it for comparison, [ABP], [BWoS], [Locked] and [Bulk], all
// behind the [Deque] interface; see Variants at the end.
//
// # Use
//
// A deque has one owner, the goroutine (in spindle, the worker) that calls
// [ChaseLev.Push] and [ChaseLev.Pop]; they work at the bottom end, last in
// first out, so the owner runs its newest, smallest, cache-hot task next.
// Any goroutine may call [ChaseLev.Steal], which takes the oldest item from
// the top end: in fork-join code that is the biggest piece of work left,
// the one most worth moving to another core. Steal reports [Success],
// [Empty], or [Retry] when it lost a race for the item; Retry does not mean
// the deque is empty. [ChaseLev.Len] is a snapshot. Items are pointers and
// nil is reserved for "nothing", so Push panics on nil.
//
// Nothing blocks and nothing allocates except growth: Push on a full deque
// doubles the ring. Push and Pop cost a handful of atomic operations and
// no CAS, except that Pop of the last item races thieves for it with one.
//
// # The algorithm
//
// Two counters, top and bottom, index an unbounded logical array; the items
// live at indices [top, bottom), and index i is stored in slot i mod size
// of a power-of-two ring. Only the owner writes bottom. Everyone advances
// top, always by compare-and-swap from an observed value t to t+1, and top
// never goes back, so a successful CAS names exactly one winner for index t.
//
//   - Push(v) writes v into slot bottom, then publishes it by storing
//     bottom+1. If the ring is full it first copies [top, bottom) into a
//     ring twice the size, at the same indices, and publishes the new ring.
//   - Steal reads top, then bottom; if top < bottom it reads the ring and
//     the slot at top, then tries CAS(top, t, t+1). Only a successful CAS
//     makes the item its own; otherwise it returns Retry and discards what
//     it read, which may be stale.
//   - Pop first reserves the newest index by storing bottom-1, then reads
//     top. If top is still below the reserved index, no thief can reach it
//     and the item is the owner's without a CAS. If they are equal, it is
//     the last item and the owner competes for it like a thief, by CAS on
//     top, then puts bottom back to top. If top is above it, the deque was
//     empty and Pop undoes its reservation.
//
// # Memory ordering
//
// In C11 the algorithm gets by with relaxed accesses plus a few fences.
// Go's sync/atomic operations are all sequentially consistent: every one
// of them takes part in a single total order that all goroutines agree on,
// and a load that observes a store is synchronized after it. So each fence
// in the C11 version is simply the seq-cst atomic that sits where the fence
// would be, and the places where the proof needs an ordering are:
//
//   - Push: the slot store before the bottom store (C11: a release fence).
//     A thief that sees the new bottom also sees the item.
//   - Grow: the copy into the new ring before the ring pointer is stored
//     (C11: release, consume on the thief's side). A thief that sees the
//     new ring sees the copied items.
//   - Pop: the store of bottom-1 before the load of top (C11: a seq-cst
//     fence). Together with the thief's load of top before its load of
//     bottom (C11: another seq-cst fence) this is the
//     store-buffering pattern: in a single total order the owner and a
//     thief cannot both miss each other's step, so they never both think
//     they own the last item without one of them going through the CAS.
//   - Steal: the ring load after the bottom load. A bottom that covers an
//     item pushed after a grow was stored after that grow's ring store, so
//     the thief reads the new ring, not an old one whose slot holds
//     something else.
//   - The CASes on top are seq-cst in C11 as well.
//
// The slots themselves are atomic pointers. A thief's read of a slot is
// speculative and may overlap the owner's write of the same slot for a
// later index; its CAS then fails and the value is thrown away, but with
// plain memory that overlap would still be a data race in Go's model (and
// a report from the race detector). Atomic slots make it well defined.
//
// The price of seq-cst everywhere is that on amd64 every atomic store is an
// XCHG, a full barrier, where C11 would emit plain moves for the relaxed
// and release stores: Push is two such stores, Pop two or three plus a CAS
// for the last item. That is most of the Push+Pop figure below.
//
// # Memory management
//
// Growth never reuses or frees a ring: a thief may still be reading the old
// one. That is safe because the owner never writes to a ring after
// replacing it, and a thief can only win, through an old ring, indices
// that were already in it when it was copied. The garbage collector frees
// old rings once no thief holds them. The ring never shrinks.
//
// Neither Pop nor Steal clears the slot it took, and Push skips its slot
// store when the slot already holds the item being pushed. Go's atomic
// stores are full barriers (XCHG on amd64); for an owner that pushes the
// same reused records again and again at the same depths, as spindle's
// runtime does, this leaves one barrier per Push (bottom) and one per Pop
// (bottom), the two the algorithm needs. The price is that a taken item
// stays referenced from its slot until the slot is reused or the ring is
// dropped: at most one ring of stale pointers.
//
// # Layout
//
// top, bottom and the ring pointer sit 128 bytes apart. Thieves write top
// and the owner writes bottom, so they must not share a cache line; 64
// bytes would separate them on x86, but Intel's adjacent-line prefetcher
// fetches lines in 128-byte pairs and would keep them coupled, and several
// arm64 cores (Apple's among them) have 128-byte lines. The ring pointer,
// read by everyone on every call and written only on growth, gets a line of
// its own so that it stays cached everywhere.
//
// # Testing
//
// The tests cover the sequential contract (LIFO Pop, FIFO Steal, scripted
// mixes, Len, growth from one slot past a million items,
// zero allocations); an exactly-once stress test where one owner pushes and
// pops a million items at random against three thieves and every item must
// come out exactly once, with pushes = pops + steals + remaining; and a
// linearizability check that records hundreds of short concurrent
// histories on real deques and verifies them with porcupine against a
// sequential model, plus histories the checker must reject. FuzzChaseLev
// compares single-goroutine operation sequences against a slice model.
//
// # Performance
//
// Medians of five runs of
//
//	go test -run '^$' -bench . -benchmem -count 5 ./deque
//
// with go1.26.8 linux/amd64 on a KVM guest with two vCPUs (nproc 2;
// /proc/cpuinfo says "Intel(R) Xeon(R) Processor", a Sapphire Rapids-class
// part by its feature flags), taken while nothing else was using the CPUs.
// The machine is shared and noisy: within that run the five figures of a
// row spread by up to 25%, and medians moved by about as much between
// runs on other occasions.
//
//	PushPop                       54.0 ns/op  0 B/op  0 allocs/op
//	Steal                         16.5 ns/op  0 B/op  0 allocs/op
//	OwnerThroughput/thieves=0     44.8 ns/op  0 B/op  0 allocs/op
//	OwnerThroughput/thieves=1     62.8 ns/op  0.99 M steals/s  0.99 M attempts/s
//	OwnerThroughput/thieves=3      137 ns/op  1.43 M steals/s  1.49 M attempts/s
//
// PushPop leaves the deque empty after every pair, so each Pop takes the
// last-item path: a CAS and one more store (bottom put back). The
// thieves=0 row is the same pair on a non-empty deque: then four seq-cst
// stores (each an XCHG on amd64) and a few loads. A lone Steal is three
// loads and a CAS.
//
// After Push learned to skip the slot store for an item already in its
// slot and Pop stopped clearing slots (the benchmarks push the same item
// over and over, as spindle's runtime does with its frames), the same
// command on the same machine, medians of five, load average under 1:
//
//	PushPop                       40.8 ns/op  0 B/op  0 allocs/op
//	Steal                         14.7 ns/op  0 B/op  0 allocs/op
//	OwnerThroughput/thieves=0     27.5 ns/op  0 B/op  0 allocs/op
//	OwnerThroughput/thieves=1     37.7 ns/op
//	OwnerThroughput/thieves=3     72.7 ns/op
//
// A pair on a non-empty deque now costs two XCHGs (bottom in Push and in
// Pop). spindle's runtime avoids even those on most forks by keeping
// jobs on a private stack and exposing one at a time (runtime.Worker.Push).
//
// One thief stealing once a microsecond costs the owner about 18 ns per
// pair. That is cache-line traffic, not CPU sharing: in a side experiment
// (3 runs each, same owner loop) a thief that only spun on the clock cost
// the owner nothing, one that also loaded top and bottom once a
// microsecond cost about 10 ns per pair, and one that did a full Steal,
// which also writes top, about 17 ns. Spread over the 15 to 25 pairs the
// owner runs per microsecond, that is a few hundred nanoseconds of owner
// time per steal, the price of pulling lines back from the other core on
// this virtual machine. With three thieves there are four busy goroutines
// on two CPUs: the owner loses about half its CPU time, and the
// time-sliced thieves reach only half their combined target pace of 3 M
// attempts/s (4% of the attempts fail, mostly Empty while the owner is
// descheduled and has not topped up). That row measures oversubscription
// more than the deque.
//
// # Variants
//
// [Deque] is the single-item contract every deque here meets: TryPush,
// which reports false when a bounded deque is full, Pop, Steal and Len.
// ChaseLev meets it through TryPush, which is its Push (it grows, so it is
// never full); its own API is unchanged. The others:
//
//   - [ABP], after Arora, Blumofe and Plaxton (SPAA 1998): a bounded
//     array, not a ring. Thieves CAS one 64-bit word holding top and a
//     tag; the owner's Pop is the Dekker pattern of ChaseLev's plus a CAS
//     for the last item, and when it finds the deque empty it moves top
//     and bot back to 0 and bumps the tag. The tag is what makes reusing
//     low slots safe: without it a thief that read top and its slot before
//     a reset could succeed with its CAS after the owner had refilled the
//     deque up to the same top. ABP is full when bot reaches the capacity,
//     even if thieves freed slots at the start; those come back only when
//     the owner empties the deque.
//   - [BWoS], after the block-based deque of Wang et al. (OSDI 2023), LIFO
//     variant, with the block count and size as parameters. The owner
//     works alone in its current block with plain loads and stores, no
//     atomic operation at all; thieves take only from blocks the owner has
//     granted them by leaving them, one CAS on the block's word (a version
//     and a claim index) per item. The owner takes its previous block back
//     with one CAS when its own runs empty, and reuses a block of the ring
//     once thieves have claimed all of it. The version in each word is
//     bumped by every grant, take-back and reuse, which rules out ABA; a
//     per-block count of finished thief reads lets entries be plain memory.
//     This is our reading of the design, not a port: we kept the blocks,
//     the owner's plain fast path, the per-block claim words and the rule
//     that thieves never enter the owner's block, and did not implement the
//     paper's probabilistic victim selection (victims are the runtime's
//     business) or its FIFO variant. The price shows in the contract: Steal
//     reports Empty while every item is in the owner's block (up to one
//     block of work that thieves cannot reach), TryPush can report full
//     below blocks*blockSize items when the owner's block was taken back
//     part-stolen, and Len is the owner's alone.
//   - [Locked]: a growable ring behind a sync.Mutex, the baseline.
//   - [Bulk], after the bulk work-stealing queue of Kataru, Davarnia and
//     Jannesari (2026): linked fixed-size segments, so it grows without
//     copying; PushBatch publishes a whole batch with one atomic add;
//     StealBatch and StealFraction (steal-half and the like) claim many
//     items with one CAS. The paper assumes at most one concurrent
//     stealer. Here top and bottom share one 64-bit word that the owner
//     changes by atomic add (Push) and CAS (Pop) and thieves by CAS, so a
//     claim of k items races the owner's Pop exactly as a claim of one
//     does and thieves exclude each other the same way: any number of
//     thieves is safe, and the tests run the batch operations with one and
//     with three. The cost is that the owner's every operation is an atomic
//     read-modify-write on a word thieves write (on amd64 the same full
//     barrier as the seq-cst stores ChaseLev already does), and that a CAS
//     fails whenever the other side moved its end; both sides retry.
//
// Every ordering argument relies on Go's sync/atomic operations being
// sequentially consistent, as in ChaseLev: a load that observes a store is
// synchronized after it, and all of them fall in one total order. The
// type documentation of each variant states its invariants and why they
// hold. Tests for all of them, table-driven (variants_test.go,
// variants_concurrent_test.go, variants_lin_test.go): random
// single-goroutine runs against a sequential specification of each
// variant (spec_test.go: ABP's full-until-reset, BWoS's blocks and ring,
// the plain deque for the others); exactly-once runs with an owner and
// three thieves, both with random pushes and pops and with the fill-drain
// pattern of the benchmark below, small sizes so that every boundary is
// crossed thousands of times; and porcupine checks of thousands of short
// concurrent histories per variant against the same exact specifications,
// batch operations included for Bulk.
//
// # Variants measured
//
// Medians of three runs each of
//
//	go run ./bench/cmd/dequebench -duration 1s -stealers 0
//	go run ./bench/cmd/dequebench -duration 1s -stealers 1
//	go run ./bench/cmd/dequebench -duration 1s -stealers 1 -freq 1000000
//	go run ./bench/cmd/dequebench -exp bulk -duration 2s
//
// with the defaults (fills of 1024 items, BWoS 8 blocks of 128, Bulk
// segments of 128, no payload), go1.26.8 linux/amd64, on a KVM guest with
// two vCPUs (/proc/cpuinfo: "AMD EPYC"), the four commands interleaved.
// Another engineer was building and benchmarking on the machine during
// this work; a monitor (top every 0.5 s, plus a count of new processes)
// found no other process using the CPU during the runs quoted, and one
// run during which many new processes appeared was thrown away and redone.
// The machine is noisy all the same: the three runs of a row differ by up
// to a factor of two when a thief runs (the first round of the 1 M/s rows
// was the fastest for every deque), and an earlier quiet set, the same
// code except
// Bulk's spare segments, gave 120 to 156 Mops/s for the owner alone and
// 137 Mops/s for BWoS's owner against a thief. Compare within a table,
// not across sets. The benchmark's method is in its command doc: the owner
// fills the deque to 1024 items (or until full), then pops it empty, again
// and again, while the thieves steal; ns/op is the owner's time per push
// or pop; push, pop and steal latencies are p50/p99 in ns of one call in
// 64, net of the clock's median cost of 20 to 30 ns, and the clock moves
// in steps of about 10 ns, so values under 20 are at its resolution.
// Empty, Retry and full count failed steals and failed pushes in the 1 s
// run.
//
// The owner alone (-stealers 0):
//
//	variant   owner Mops/s  owner ns/op
//	chaselev          96.3         10.4
//	abp              103.7          9.6
//	bwos              93.6         10.7
//	locked            81.7         12.2
//	bulk              90.5         11.1
//
// With nobody else touching its lines, every deque costs the owner about
// 10 ns per push or pop, most of it the benchmark's own loop, interface
// call and sampling; the differences are within the runs' spread (in the
// earlier set BWoS came first, at 6.4 ns against ChaseLev's 7.5). An
// uncontended seq-cst store or CAS is cheap here; what the variants differ
// in is what happens when a thief is on the other core.
//
// One thief stealing as fast as it can (-stealers 1):
//
//	variant   owner  steal  total  owner   push     pop      steal     Empty  Retry  full
//	         Mops/s Mops/s Mops/s  ns/op
//	chaselev   20.3   14.4   33.6   49.3   70/151   50/131    70/110    7.4 M    720     0
//	abp        20.9   19.3   40.7   47.8  101/141    0/150    30/70    25.5 M    406     0
//	bwos       82.5   39.1  121.6   12.1    0/110    0/150    10/411   21.0 M  13513  1265
//	locked     39.2   16.2   55.5   25.5   10/1713  10/1002  10/2784  14.4 M      0     0
//	bulk       33.1   13.4   46.5   30.2   30/170   30/151   51/231    2.5 M 134680     0
//
// This is the BWoS paper's headline effect. ChaseLev's and ABP's owners
// slow down five times, to about 50 ns per operation, because every push
// and pop reads or writes top or bottom, lines the thief rereads and
// rewrites continuously, so each owner operation waits for at least one
// line to come back from the other core. BWoS's owner touches a line a
// thief uses only at block boundaries, once per 128 items, and stays close
// to its speed alone (12.1 ns); its thief, which claims from blocks the
// owner no longer writes, also steals the most, so the total is 3.6 times
// ChaseLev's. Its costs are in the last columns: the thief finds Empty
// while the items left are all in the owner's block, and fills end early
// (full) when the owner's first block is one it took back part-stolen.
// Bulk's owner does better than ChaseLev's because both ends share one
// word, one contended line per operation instead of two; its Retry counts
// thief claims that lost to another claim or kept losing to the owner's
// moves of bottom. Locked beats both lock-free deques here, and not
// because locking is cheap: a blocked thief spins and then sleeps inside
// sync.Mutex, which keeps it off the owner's lines, while ChaseLev's
// thief comes straight back for top and bottom after every Empty. Its
// p99s (1 to 3 µs) are those waits.
//
// One thief at a million attempts per second (-freq 1000000):
//
//	variant   owner  steal  total  owner   push     pop      steal     Empty  Retry  full
//	         Mops/s Mops/s Mops/s  ns/op
//	chaselev   61.6   0.95   62.5   16.2   10/451   10/330  200/430   18716     71     0
//	abp        70.4   0.97   71.3   14.2   10/290    1/301  120/371   16910     42     0
//	bwos       99.2   0.89  100.1   10.1    0/20     0/40    20/390   95110    492 48220
//	locked     58.3   0.87   59.2   17.1   10/921   10/881   90/3465  24941      0     0
//	bulk       73.6   0.97   74.5   13.6   10/171   10/180  140/401    9771   1207     0
//
// A steal every microsecond still costs ChaseLev's owner about 6 ns per
// operation over its speed alone, a few hundred nanoseconds of line
// transfers per steal as in the ChaseLev figures above; BWoS's owner
// loses almost nothing, and its push and pop p99s stay at the clock's
// resolution where the others' reach hundreds of nanoseconds. A BWoS
// steal is also the quickest (20 ns median against 200 for ChaseLev, whose
// thief misses on top and bottom every time). Again the price: one
// attempt in ten finds Empty, and 48 thousand fills stop early.
//
// The bulk-queue paper's experiments (-exp bulk), one goroutine, no thief;
// ns per operation (p50/p99) and ns per item at the median:
//
//	push B items    Bulk.PushBatch        ChaseLev, B Pushes
//	B = 1             20/111   20           0/101     0   (both at the clock's resolution)
//	B = 128           90/290    0.70       841/1343   6.6
//	B = 512          250/570    0.49      2533/4266   4.9
//	B = 1024         481/1002   0.47      6900/9505   6.7
//
//	steal f of 1024   Bulk.StealFraction    ChaseLev, one Steal per item
//	f = 10% (103)    101/241    0.98       571/851    5.5
//	f = 20% (205)    140/300    0.68      1382/1573   6.7
//	f = 30% (308)    190/10105  0.62      1362/2244   4.4
//	f = 40% (410)    180/801    0.44      2684/3275   6.5
//	f = 50% (512)    230/19609  0.45      3365/4096   6.6
//	f = 60% (615)    310/1603   0.50      3536/4727   5.7
//
// A batch costs Bulk one atomic operation however large it is, so what
// grows with B or f is only the copying, about half a nanosecond per item,
// against 5 to 7 ns per item for ChaseLev's one Push or Steal per item (two
// seq-cst stores, or four loads and a CAS, each). The paper reports
// push and steal latencies nearly flat in the batch size and the stolen
// fraction; here they grow with the copy but stay an order of magnitude
// under the item-by-item loop at every size. The p99s of StealFraction
// spike in some runs (10 to 20 µs): steals move top forward, so each
// refill allocates new 1 KiB segments for the 128 items per segment that
// were stolen, and the garbage collector's work lands on some of the timed
// steals. Keeping popped-back segments as spares (the earlier set did not)
// took PushBatch's p99 at B = 1024 from 26 µs to 1 µs.
//
// # Variants inside the runtime
//
// pool.WithDeque runs a pool on any variant; every kind but the default
// then publishes each fork to its deque, as the thesis's runtimes do.
// BenchmarkDequeKinds in package bench runs the fib and quicksort workloads
// on each (medians of 3, same machine, quiet):
//
//	go test -run '^$' -bench DequeKinds -benchtime 5x -count 3 ./bench -fibn 30 -qsn 2000000
//
//	deque            fib(30) 1 worker  2 workers   quicksort 2M 1 worker  2 workers
//	chaselev (lazy)        23.2 ms      14.2 ms          140.4 ms         71.8 ms
//	chaselev-eager         61.8 ms      29.8 ms          139.4 ms         74.8 ms
//	abp                    52.1 ms      30.7 ms          141.1 ms         76.2 ms
//	bwos                   50.0 ms      72.8 ms          145.0 ms        160.7 ms
//	locked                 88.2 ms      32.1 ms          149.5 ms         77.8 ms
//	bulk                   53.6 ms      30.3 ms          190.8 ms         81.1 ms
//
// On fib, where a fork is the whole cost, publishing every fork costs more
// than the choice of deque: lazy publication is 2 to 3 times faster than
// any eager variant. Among eager ones, BWoS's lock-free owner path makes it
// the fastest at 1 worker, but at 2 it is the slowest: a thief cannot take
// jobs in the block the owner is using, and fork-join keeps few jobs
// queued, so the second worker mostly finds nothing and the run is slower
// than on one worker. Locked pays a mutex per fork alone but little more
// with a thief. Quicksort forks rarely relative to its work, so every deque
// but BWoS does about equally.
package deque
