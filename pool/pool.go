// Package pool runs fork-join work on a pool of worker threads with work
// stealing: parallel recursive code (divide and conquer, tree and graph
// walks) forks at every level, and the pool balances the pieces over its
// workers. Package forkjoin builds typed forks, loops and slice algorithms
// on it.
//
//   - Pools: New with options (WithWorkers, WithLockedThreads, WithPinning,
//     WithPanicHandler, WithName, WithTrace, WithPriorityPolicy,
//     WithSpares, WithWorkerHooks), Default and SetDefault (the pool of
//     calls made outside any pool), Current, Close, CloseContext (with
//     a deadline) and CloseNow (dropping what has not started),
//     Broadcast (a function once on every worker), Stats, WorkerIndex,
//     PerWorker (a value per worker, for tasks that return nothing).
//   - Joined (the caller waits for both): Join, on the caller's pool
//     (Default() outside one; the first function stays on the caller's
//     stack, so prefer it inside tasks), and Pool.Join, on that pool.
//   - Scoped (the scope waits for them): Pool.Scope with Scope.Spawn and
//     Scope.SpawnMany (SpawnPriority and SpawnManyPriority for priority
//     levels up to MaxPriority); Pool.Run is one call on a pool.
//     ScopeContext and RunContext take a context, whose end stops what
//     has not started (Scope.Context hands it to the tasks).
//   - Detached (nobody waits but Close): Spawn, Pool.Spawn; Submit returns
//     a Future to wait on, and SubmitContext one whose task a context
//     cancels if it has not started.
//   - Errors and cancellation: Group, golang.org/x/sync/errgroup's Group
//     on the pool (Go, TryGo, SetLimit, Wait, NewGroup with a context).
//   - Tasks that block: spare workers take a blocked worker's place
//     (WithSpares, MaxWorkers); Block is the explicit form.
//   - Analysis: Analyze and AnalyzeCPU (work, span, predicted speedup).
//
// A Pool has one worker per OS thread, each owning a work-stealing deque;
// idle workers steal, spin briefly, then sleep and cost nothing. A join
// whose second half was stolen runs other work until it is done, so
// nested joins never block a thread while work exists. Calls from a
// goroutine that is not a worker block it until done; calls from another
// pool's worker keep that worker serving its own pool meanwhile.
//
// Panics in tasks are re-raised in the caller of Join, Scope, Run, Wait or
// Future.Wait as a *PanicError, after every task that call started has
// finished; the pool stays usable. docs/guide.md has a tour.
package pool

import (
	"errors"
	"fmt"
	goruntime "runtime"

	"github.com/spindle-go/spindle/internal/engineopt"
	"github.com/spindle-go/spindle/runtime"
)

// Pool is a set of worker threads. Create one with New; the zero value is
// not usable. Every method called on a nil *Pool or a zero Pool panics
// with a message naming the call ("pool.Pool.Run: nil *pool.Pool",
// "pool.Pool.Run: zero pool.Pool: make a pool with pool.New, ..."), as
// Submit does given one.
type Pool struct {
	reg *runtime.Registry
	// closing is set, under defaultMu, when Close starts; SetDefault
	// refuses such a pool (default.go).
	closing bool
}

// ErrClosed is wrapped by the panics of calls on a closed pool:
// errors.Is(err, ErrClosed) holds for them.
var ErrClosed = errors.New("spindle: pool is closed")

// ErrCloseFromWorker is returned by Close when called from one of the
// pool's own workers (it would wait for itself forever).
var ErrCloseFromWorker = errors.New("spindle: Close called from one of the pool's own workers")

// ErrCloseDefault is returned by Close called on Default(), which is not
// closed while it is the default: every package-level call that runs
// outside a pool (Join, Spawn, NewGroup, forkjoin's functions) depends on
// it.
var ErrCloseDefault = errors.New("spindle: Close called on the default pool, which is not closed while it is the default")

// Option configures New.
type Option func(*config) error

// config is the engine's settings. spindle's benchmarks and tests select
// the engine's research variants with options of their own over it
// (internal/experiment).
type config = engineopt.Settings

// WithWorkers fixes the number of workers at n (n >= 1). Without it a
// pool has as many workers as GOMAXPROCS says, and follows it as it
// changes (go test -cpu, runtime.GOMAXPROCS, Go's own updates to a
// container's CPU limit): within a few milliseconds while the pool
// computes, by its next call otherwise; up to max(FollowedWorkers,
// runtime.NumCPU(), GOMAXPROCS at New).
//
// A pool of n workers keeps n workers, their indexes and their threads
// whatever GOMAXPROCS says, but no more of them look for work at once
// than there are Ps: the others park when they are out of work, and come
// back as GOMAXPROCS grows. (A locked worker needs a P to run; more
// workers than Ps would only take turns on the Ps, each turn a thread
// switch.) A test that needs n workers running at once on fewer CPUs
// raises GOMAXPROCS to n; Go allows more Ps than CPUs.
func WithWorkers(n int) Option {
	return func(c *config) error {
		if n < 1 || n > runtime.MaxWorkers {
			return fmt.Errorf("pool.WithWorkers(%d): want 1 to %d workers", n, runtime.MaxWorkers)
		}
		c.Workers, c.FollowProcs = n, false
		return nil
	}
}

// FollowedWorkers is the least number of workers a pool made without
// WithWorkers may grow to as GOMAXPROCS grows (WithWorkers).
const FollowedWorkers = 256

// DefaultSpares is how many spare workers a pool may run at once unless
// WithSpares says otherwise.
const DefaultSpares = 256

// WithSpares sets how many spare workers the pool may run at once in
// place of workers whose task is blocked (n >= 0; the default is
// DefaultSpares; 0 turns compensation off).
//
// A task that blocks (time.Sleep, a channel, a mutex, a WaitGroup, a
// read) parks its worker's thread until it resumes. The pool notices a
// worker blocked that way within about a millisecond, a few at many
// workers (its goroutine waits, in something other than the pool's own
// waits, whatever the machine's load) and, while tasks are queued,
// starts a spare worker in its place, so the pool keeps as many workers
// running as it was made with: an errgroup-style fan-out of blocking
// calls runs about as wide as with goroutines, and tasks that wait for
// one another (a barrier, a pipeline over channels) progress as long as
// fewer than n of them block at once. A spare is a worker like the others with deques of its own,
// run by an ordinary goroutine (not locked to a thread: its tasks block
// and resume, and a locked thread would pay a thread switch for each); it
// retires at a task boundary once the blocked tasks resume, and parks to
// be reused. Its WorkerIndex is in [Workers(), MaxWorkers()). Block
// remains the explicit, immediate form, which needs no spare.
//
// Compensation needs the pool to read a goroutine's state, which it does
// on amd64 and arm64 (any OS, locked threads or not); elsewhere no spare
// starts. Stats counts spares and the time workers were seen blocked.
func WithSpares(n int) Option {
	return slotCount("pool.WithSpares", "spares", n, func(c *config) { c.Spares = n })
}

// slotCount is an option that sets, with set, a count n of worker slots
// past the workers (spare workers, guests), or fails, naming call, when n
// is out of [0, runtime.MaxWorkers-1].
func slotCount(call, what string, n int, set func(c *config)) Option {
	return func(c *config) error {
		if n < 0 || n > runtime.MaxWorkers-1 {
			return fmt.Errorf("%s(%d): want 0 to %d %s", call, n, runtime.MaxWorkers-1, what)
		}
		set(c)
		return nil
	}
}

// DefaultGuests is how many goroutines that are no worker may run their
// calls on themselves at once, as guests of the pool, unless WithGuests
// says otherwise; more on a machine of more CPUs, or a program of more Ps
// at New: max(DefaultGuests, runtime.NumCPU(), GOMAXPROCS), so that the
// callers can fill the Ps. A guest takes the place of one of the workers
// while its call lasts (the pool runs at most GOMAXPROCS threads of
// work), so a request handler that forks computes its request itself
// instead of parking and waking a worker; more callers at once than this
// hand their calls to the workers and block (docs/performance/server.md).
const DefaultGuests = 64

// WithGuests sets how many goroutines that are no worker may run their
// calls on themselves at once (n >= 0; the default is DefaultGuests, or
// the CPUs or Ps if more).
//
// With n > 0, a call from a goroutine that is no worker (Run, Scope, Join
// and package forkjoin's functions) runs on the calling goroutine, which
// takes part in the pool for the call's length as a guest: its forks and
// spawns are open to the workers, who are woken to steal them, and it
// helps run them while it waits, as a worker does. So a request handler
// that forks keeps its own goroutine busy instead of parking it and
// waking a worker (docs/performance/server.md has the measurements).
// While as many guests compute as there are Ps, workers leave them alone
// and they wake nobody for their own forks: each caller computes its call
// by itself (on the default pool, forkjoin.Fold and Reduce called from a
// goroutine then run serially on it without a slot). A guest takes a
// worker's place: while it computes, one worker fewer looks for work (at
// least one does), so the pool and its callers never run more threads of
// work than GOMAXPROCS.
//
// While it is a guest, Current returns the pool and WorkerIndex an index
// in [Workers(), MaxWorkers()), as for a spare; its thread is the
// caller's own, not locked by the pool. When more than n goroutines call
// at once, the others hand their call to the workers and block until it
// is done, as every call does with n = 0.
func WithGuests(n int) Option {
	return slotCount("pool.WithGuests", "guests", n, func(c *config) { c.Guests = n })
}

// WithPinning pins worker i to the i-th CPU (modulo their number) of the
// process's affinity set. Linux only; ignored elsewhere. A guest
// (WithGuests) runs on its caller's thread, which is not pinned.
func WithPinning(on bool) Option {
	return func(c *config) error { c.Pin = on; return nil }
}

// WithLockedThreads(false) runs the workers as ordinary goroutines instead
// of goroutines locked to their OS threads (the default, true). Every
// time the Go scheduler preempts a locked worker (each garbage
// collection stops and scans every goroutine; sysmon preempts goroutines
// that run for 10 ms; a GC worker takes a P) the worker's P moves to
// another thread and back, which costs tens of microseconds where an
// ordinary goroutine's preemption costs a fraction of one.
// Unlocked workers are faster where tasks allocate and two workers share
// the collector, and a Run from outside returns sooner on an awake pool;
// on one worker the two are within a few percent either way.
// docs/performance/allocation.md has the figures. WithPinning needs locked threads:
// New fails if both are asked.
func WithLockedThreads(on bool) Option {
	return func(c *config) error { c.Unlocked = !on; return nil }
}

// WithPanicHandler sets the function that receives the panics of detached
// tasks (Pool.Spawn, Spawn), as *PanicError. It runs on the worker that ran
// the task. Without it such a panic crashes the program, as an unrecovered
// panic in a goroutine would. A nil h restores that default.
func WithPanicHandler(h func(v any)) Option {
	return func(c *config) error { c.PanicHandler = h; return nil }
}

// WithName names the pool in CPU and goroutine profiles: its workers carry
// the pprof labels spindle.pool=name and spindle.worker=<index>. The
// default is "pool-N", N counting pools from 1.
func WithName(name string) Option {
	return func(c *config) error { c.Name = name; return nil }
}

// WithTrace makes the pool call f for every steal, every worker that goes
// to sleep, every sleeping worker woken, and every spare worker started
// or retired (see Event). f runs on the pool's
// threads while they look for work: it must be quick and must not block
// (append to a buffer, bump a counter). Forks never look at it, and without
// it the paths that would call it test one nil field.
func WithTrace(f func(Event)) Option {
	return func(c *config) error { c.Trace = traceOf(f); return nil }
}

// WithWorkerHooks makes each of the pool's own workers call start, on its
// own goroutine and OS thread, once it is set up and before it runs a
// task, and exit after its last task, as it ends in Close (Rayon's
// start_handler and exit_handler): for per-thread setup, a tracer's
// thread registration, per-worker state kept by WorkerIndex. Each gets the
// worker's index (WorkerIndex), in [0, MaxWorkers()). New returns once
// every first worker's start has returned; a worker made later, as the
// pool follows GOMAXPROCS up, calls start when it is made. Spare workers
// (WithSpares), which are goroutines that come and go in place of blocked
// workers, and callers running their calls as guests (WithGuests) call
// neither. Either may be nil. A panic in a hook goes to the panic handler
// (WithPanicHandler), as a detached task's does, and the worker goes on.
func WithWorkerHooks(start, exit func(worker int)) Option {
	return func(c *config) error {
		c.OnWorkerStart, c.OnWorkerExit = start, exit
		return nil
	}
}

// New starts a pool. It returns an error, never panics, for invalid
// options.
func New(opts ...Option) (*Pool, error) {
	procs := goruntime.GOMAXPROCS(0)
	// The Ps a pool may see: what it follows, and its guests' default.
	ps := max(goruntime.NumCPU(), procs)
	c := config{Config: runtime.Config{Workers: procs, FollowProcs: true, MaxFollowed: max(FollowedWorkers, ps),
		Spares: DefaultSpares, Guests: max(DefaultGuests, ps), PanicValue: panicValue{}, Closed: ErrClosed}}
	for _, o := range opts {
		if o == nil {
			return nil, fmt.Errorf("pool.New: nil Option")
		}
		if err := o(&c); err != nil {
			return nil, err
		}
	}
	workers := c.Workers // the most the pool may make
	if c.FollowProcs {
		c.MaxFollowed = min(c.MaxFollowed, runtime.MaxWorkers)
		workers = max(workers, c.MaxFollowed)
	}
	c.Spares = min(c.Spares, runtime.MaxWorkers-workers)
	c.Guests = min(c.Guests, runtime.MaxWorkers-workers-c.Spares)
	reg, err := runtime.NewRegistry(c.Config)
	if err != nil {
		return nil, fmt.Errorf("pool.New: %w", err)
	}
	p := &Pool{reg: reg}
	setOwner(reg, p)
	return p, nil
}

// Workers returns the number of workers: the current GOMAXPROCS for a
// pool that follows it (WithWorkers), as the pool last read it.
func (p *Pool) Workers() int {
	p.mustBeMade("pool.Pool.Workers")
	return p.reg.Workers()
}

// MaxWorkers returns the number of worker indexes the pool may use: its
// workers, the spares it may start while workers are blocked
// (WithSpares) and the guest slots of callers (WithGuests). WorkerIndex is always below it: size per-worker state by
// MaxWorkers, with a slot for -1.
func (p *Pool) MaxWorkers() int {
	p.mustBeMade("pool.Pool.MaxWorkers")
	return p.reg.Slots()
}

// Run runs f on a worker of p and returns when f has returned. A panic in
// f is re-raised as a *PanicError. On a closed pool it panics with an error
// wrapping ErrClosed.
func (p *Pool) Run(f func()) {
	p.mustBeMade("pool.Pool.Run")
	if f == nil {
		nilFunc("pool.Pool.Run")
	}
	p.reg.Run("pool.Pool.Run", f)
}

// Join runs a and b, possibly in parallel, and returns when both have
// returned. If either panics, Join re-panics with the first panic (a's if
// both did) as a *PanicError, after both have finished.
//
// a escapes to the heap, because a call from another pool's worker hands
// it to p's workers; the package-level Join, which never crosses pools,
// avoids that allocation.
func (p *Pool) Join(a, b func()) {
	p.mustBeMade("pool.Pool.Join")
	if a == nil {
		nilFunc("pool.Pool.Join")
	}
	if b == nil {
		nilFunc("pool.Pool.Join")
	}
	p.reg.Join("pool.Pool.Join", a, b)
}

// Scope runs f with a Scope on which f (and the tasks it spawns) can spawn
// tasks, and returns when f and all of them have finished. It re-panics
// with the first panic among them as a *PanicError.
func (p *Pool) Scope(f func(s *Scope)) {
	p.mustBeMade("pool.Pool.Scope")
	if f == nil {
		nilFunc("pool.Pool.Scope")
	}
	p.reg.Scope("pool.Pool.Scope", engineTask(f))
}

// Spawn runs f on p without waiting for it; Close waits for it. A panic in
// f goes to the pool's panic handler.
func (p *Pool) Spawn(f func()) {
	p.mustBeMade("pool.Pool.Spawn")
	if f == nil {
		nilFunc("pool.Pool.Spawn")
	}
	p.reg.Spawn("pool.Pool.Spawn", f)
}

// Close stops accepting calls from outside the pool, waits for the calls in
// progress, for detached tasks (Spawn), futures (Submit, SubmitContext)
// and every queued or running task of every Group on the pool, then stops
// the workers and ends their threads (unlocked workers' threads go back
// to the Go scheduler; see WithLockedThreads). Nothing handed to the pool
// before Close is dropped: tasks that those calls and tasks queue while
// Close waits run too, but for those of SubmitContext cancelled before
// they started, whose futures are done. After Close, calls from outside
// (Run, Join, Scope, Spawn, Submit, SubmitContext, Group.Go and TryGo)
// panic with an error wrapping ErrClosed. Close is idempotent. Called from one of p's workers it
// returns ErrCloseFromWorker, and on the pool that is Default() (the
// built-in one or one given to SetDefault) ErrCloseDefault, and does
// nothing. docs/guide.md, "Blocking, limits and closing", has the whole
// picture.
func (p *Pool) Close() error {
	p.mustBeMade("pool.Pool.Close")
	return p.close(p.reg.Close)
}

// CloseNow is Close that drops the detached work nobody has started: from
// the call on, a task of Spawn that a worker reaches is dropped without
// running, and a future of Submit or SubmitContext whose task has not
// started completes as cancelled (Done is closed, Wait and TryGet return
// the zero value, and Err returns an error wrapping ErrClosed), as a
// cancelled SubmitContext does. That includes what tasks still running
// queue meanwhile. What has started runs to the end, since Go cannot stop
// a function from outside, and calls in progress (Run, Join, Scope, a
// Group's Wait and the like) finish with all their tasks, since their
// callers wait for them: stop those through their contexts (ScopeContext,
// RunContext, NewGroup). CloseNow then returns as Close does, with Close's
// results: ErrCloseFromWorker from p's own workers and ErrCloseDefault on
// the default pool, dropping nothing.
func (p *Pool) CloseNow() error {
	p.mustBeMade("pool.Pool.CloseNow")
	return p.close(p.reg.CloseNow)
}

// errDropped is the Err of a future whose task CloseNow dropped.
var errDropped = fmt.Errorf("spindle: task dropped unstarted by pool.Pool.CloseNow: %w", ErrClosed)

// close is Close and CloseNow, closing p's registry with closeReg.
func (p *Pool) close(closeReg func() error) error {
	if !closingUnlessDefault(p) {
		return ErrCloseDefault
	}
	err := closeReg()
	if errors.Is(err, runtime.ErrCloseFromWorker) {
		notClosing(p) // it did not start: p may still be made the default
		return ErrCloseFromWorker
	}
	if err == nil {
		dropOwner(p.reg)
	}
	return err
}

// Stats returns the pool's counters.
func (p *Pool) Stats() Stats {
	p.mustBeMade("pool.Pool.Stats")
	return statsOf(p.reg)
}

// WorkerIndex returns the calling worker's index in its pool, or -1 when
// the caller is not a worker: in [0, MaxWorkers()) always; in [0,
// Workers()) for the workers the pool started with, and past them, in the
// order they were made, for a spare running in place of a blocked worker
// (WithSpares), a guest's call (WithGuests) and a worker made as the pool
// grew with GOMAXPROCS (so a grown pool's workers may have indexes past
// Workers()): size per-worker state by MaxWorkers(). -1 includes forkjoin
// calls made outside a pool whose input is too small to split, and
// forkjoin.Fold and Reduce called from a goroutine while the default
// pool's callers fill its Ps, which run on the calling goroutine:
// per-worker state indexed by WorkerIndex needs a slot for -1. For state
// per piece of a loop, forkjoin.Fold keeps an accumulator per run of
// pieces instead.
func WorkerIndex() int {
	if w := runtime.WorkerOf(runtime.CurrentG()); w != nil { // inlined: per task
		return w.Index()
	}
	return -1
}

// Join runs a and b, possibly in parallel, on the current pool.
//
// b is a closure stored where another worker can reach it, so it and the
// variables it captures by reference are allocated on the heap at every
// fork, and the garbage collector's work grows with the forks: on many
// cores that, not the pool, limits how far a closure fork scales.
// forkjoin's typed forks allocate nothing; docs/performance/many-cores.md,
// "Many cores and the garbage collector", has the figures and what to do.
//
// Prefer it to the method inside tasks: it calls a in place, so a (and
// what a captures) stays on the caller's stack, and a fork costs only b's
// closure and the variables b captures by reference. The method must be
// able to carry a to another pool's worker, which makes a escape. For the
// same reason, from a goroutine that is no worker Join runs a on that
// goroutine, while b goes to pool.Default() (or runs on the caller too if
// no worker has started it when a returns); joins nested in b run on the
// pool. Use Default().Join to run both on the pool.
func Join(a, b func()) {
	// One call, so that Join inlines into the task and a fork makes a
	// single call into the runtime (see runtime.JoinCurrent).
	runtime.JoinCurrent("pool.Join", a, b, defaultRegistry)
}

// defaultRegistry is where pool.Join sends joins from goroutines that are
// no worker.
func defaultRegistry() *runtime.Registry { return Default().reg }

// Spawn runs f detached on the current pool: Current().Spawn(f).
func Spawn(f func()) {
	if f == nil {
		nilFunc("pool.Spawn")
	}
	if w := runtime.CurrentWorker(); w != nil {
		w.Registry().Spawn("pool.Spawn", f)
		return
	}
	Default().reg.Spawn("pool.Spawn", f)
}

// nilFunc panics for a nil function argument: a programming error, named
// after the call that received it.
func nilFunc(call string) { panic(call + ": nil function") }

// nilPointer panics for a call on (or with) a nil pointer of the given
// type, such as a *Pool variable never assigned: a programming error,
// named after the call and the type, where it would otherwise be a nil
// dereference somewhere inside the call.
func nilPointer(call, typ string) { panic(call + ": nil " + typ) }

// mustBeMade panics, naming call, unless p was made by New: for a nil
// *Pool, and for a zero Pool (var p pool.Pool), which has no workers.
func (p *Pool) mustBeMade(call string) {
	if p == nil {
		nilPointer(call, "*pool.Pool")
	}
	if p.reg == nil {
		panic(call + ": zero pool.Pool: make a pool with pool.New, or use pool.Default()")
	}
}
