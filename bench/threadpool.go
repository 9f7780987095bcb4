package bench

import (
	"errors"
	"sync"
	"sync/atomic"

	"github.com/spindle-go/spindle/pool"
)

// ThreadPool is the baseline of the futures benchmarks: the basic thread
// pool of textbooks. A fixed number of goroutines take tasks from one FIFO
// queue guarded by one mutex; Submit appends a task and returns its
// Future. No per-worker queues, no stealing: every submission and every
// take goes through the same lock.
//
// A classic pool of this kind deadlocks on nested waits: a task that
// waits for a task it submitted holds its worker, and once every worker
// waits, nobody runs the queue. Fork-join code (fib with a future at every
// level) needs the one trick that makes such a pool usable for it, and
// Future.Wait has it: a waiter runs queued tasks until its result is
// ready. It first takes its own task back if that is still the newest in
// the queue (the common case in recursive code: whatever it submitted
// later it has already waited for), and otherwise runs the oldest queued
// tasks, sleeping on the pool's condition variable when the queue is
// empty. Without the take-back, FIFO helping runs the oldest, largest
// pending tasks nested on the waiter's stack, which in a trial made fib
// several times slower and its goroutine stacks far deeper
// (docs/bench-notes.md has the figures).
// With it, the pool is a mutex-protected deque: FIFO for workers, LIFO
// for a waiter's own last task.
//
// Tasks' panics are recovered and re-raised by Wait, as pool.Submit does,
// so the comparison is like for like. The zero value is not usable; call
// NewThreadPool, and Close when done.
type ThreadPool struct {
	mu    sync.Mutex
	cond  sync.Cond // on mu: idle workers and waiters with nothing to run sleep here
	queue []queuedTask
	head  int // queue[head:] are the queued tasks, oldest first
	// sleepers counts the goroutines in cond.Wait. It changes under mu but
	// is read without it by completing tasks (see Future.finish).
	sleepers atomic.Int32
	closed   bool
	workers  sync.WaitGroup
}

// queuedTask is a Future[T] of any T in the queue.
type queuedTask interface{ execute() }

// ErrThreadPoolClosed is the panic of Submit on a closed ThreadPool.
var ErrThreadPoolClosed = errors.New("bench: ThreadPool is closed")

// NewThreadPool starts workers goroutines (at least one).
func NewThreadPool(workers int) *ThreadPool {
	p := &ThreadPool{}
	p.cond.L = &p.mu
	workers = max(workers, 1)
	p.workers.Add(workers)
	for range workers {
		go p.work()
	}
	return p
}

// work is a worker goroutine: run queued tasks, oldest first, until the
// pool is closed and the queue empty.
func (p *ThreadPool) work() {
	defer p.workers.Done()
	p.mu.Lock()
	for {
		if t := p.popOldest(); t != nil {
			p.mu.Unlock()
			t.execute()
			p.mu.Lock()
			continue
		}
		if p.closed {
			break
		}
		p.sleep()
	}
	p.mu.Unlock()
}

// sleep waits on the condition variable; the caller holds mu.
func (p *ThreadPool) sleep() {
	p.sleepers.Add(1)
	p.cond.Wait()
	p.sleepers.Add(-1)
}

// popOldest removes and returns the oldest queued task, or nil; the
// caller holds mu.
func (p *ThreadPool) popOldest() queuedTask {
	if p.head == len(p.queue) {
		return nil
	}
	t := p.queue[p.head]
	p.queue[p.head] = nil
	p.head++
	if p.head == len(p.queue) {
		p.queue, p.head = p.queue[:0], 0
	} else if p.head >= 1024 && p.head*2 >= len(p.queue) {
		n := copy(p.queue, p.queue[p.head:])
		clear(p.queue[n:])
		p.queue, p.head = p.queue[:n], 0
	}
	return t
}

// takeBack removes t if it is the newest queued task and reports whether
// it did; the caller holds mu.
func (p *ThreadPool) takeBack(t queuedTask) bool {
	n := len(p.queue) - 1
	if n < p.head || p.queue[n] != t {
		return false
	}
	p.queue[n] = nil
	p.queue = p.queue[:n]
	if n == p.head {
		p.queue, p.head = p.queue[:0], 0
	}
	return true
}

// Close lets the workers finish the queued tasks, then stops them and
// returns once they have exited. Call it once, after the last Submit.
func (p *ThreadPool) Close() {
	p.mu.Lock()
	p.closed = true
	p.cond.Broadcast()
	p.mu.Unlock()
	p.workers.Wait()
}

// Run runs f on a worker and returns when it has returned, re-panicking
// with its panic. The caller blocks on a channel and does not run queued
// tasks, so a pool of K workers computes with K goroutines: this is how
// the benchmarks start the root task from outside.
func (p *ThreadPool) Run(f func()) {
	done := make(chan struct{})
	var panicked any
	Submit(p, func() struct{} {
		defer func() {
			panicked = recover()
			close(done)
		}()
		f()
		return struct{}{}
	})
	<-done
	if panicked != nil {
		panic(panicked)
	}
}

// Future is the result of a task submitted to a ThreadPool.
type Future[T any] struct {
	p     *ThreadPool
	fn    func() T
	val   T
	panic any
	done  atomic.Bool // set after val and panic are written
}

// Submit queues f on p and returns its future. It panics with
// ErrThreadPoolClosed after Close.
func Submit[T any](p *ThreadPool, f func() T) *Future[T] {
	fut := &Future[T]{p: p, fn: f}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		panic(ErrThreadPoolClosed)
	}
	p.queue = append(p.queue, fut)
	if p.sleepers.Load() > 0 {
		p.cond.Signal()
	}
	p.mu.Unlock()
	return fut
}

// execute runs the task; whoever removed it from the queue calls it, once.
func (f *Future[T]) execute() {
	defer f.finish()
	f.val = f.fn()
}

// finish records the task's panic, if any, marks f done and wakes the
// sleepers if there are any, for a waiter may sleep among them. It is
// deferred directly, so recover works in it.
//
// No wake-up is lost: a waiter increments sleepers, then checks done,
// under mu, before cond.Wait; finish sets done, then loads sleepers. Both
// are sequentially consistent atomics, so either the waiter sees done, or
// finish sees it counted and takes mu, which the waiter releases only
// inside cond.Wait, before the Broadcast.
func (f *Future[T]) finish() {
	if v := recover(); v != nil {
		f.panic = v
	}
	f.fn = nil
	f.done.Store(true)
	if p := f.p; p.sleepers.Load() > 0 {
		p.mu.Lock()
		p.cond.Broadcast()
		p.mu.Unlock()
	}
}

// Wait returns the task's result, or re-panics with its panic, running
// queued tasks until it is ready (see ThreadPool). It is meant for the
// pool's tasks; a goroutine outside the pool that calls it lends itself to
// the pool while it waits.
func (f *Future[T]) Wait() T {
	if !f.done.Load() {
		f.help()
	}
	if f.panic != nil {
		panic(f.panic)
	}
	return f.val
}

func (f *Future[T]) help() {
	p := f.p
	p.mu.Lock()
	if p.takeBack(f) {
		p.mu.Unlock()
		f.execute()
		return
	}
	for !f.done.Load() {
		if t := p.popOldest(); t != nil {
			p.mu.Unlock()
			t.execute()
			p.mu.Lock()
			continue
		}
		p.sleepers.Add(1)
		if !f.done.Load() {
			p.cond.Wait()
		}
		p.sleepers.Add(-1)
	}
	// A Submit's Signal may have woken this waiter instead of an idle
	// worker; pass it on if tasks are left.
	if p.head < len(p.queue) && p.sleepers.Load() > 0 {
		p.cond.Signal()
	}
	p.mu.Unlock()
}

// FibThreadPool computes fib(n) on p with a future at every level:
// submit fib(n-1), compute fib(n-2), wait. Start it with p.Run.
func FibThreadPool(p *ThreadPool, n int) int64 {
	if n < 2 {
		return int64(n)
	}
	f := Submit(p, func() int64 { return FibThreadPool(p, n-1) })
	b := FibThreadPool(p, n-2)
	return f.Wait() + b
}

// FibSubmit is FibThreadPool with pool.Submit and Future.Wait on p. Run it
// on a worker of p (inside p.Run) to measure.
func FibSubmit(p *pool.Pool, n int) int64 {
	if n < 2 {
		return int64(n)
	}
	f := pool.Submit(p, func() int64 { return FibSubmit(p, n-1) })
	b := FibSubmit(p, n-2)
	return f.Wait() + b
}

// QuicksortThreadPool submits the left half of every partition to p,
// sorts the right half itself and waits. Start it with p.Run.
func QuicksortThreadPool(p *ThreadPool, s []int64, cutoff int) {
	if len(s) < cutoff {
		InsertionSort(s)
		return
	}
	q := Partition(s)
	f := Submit(p, func() struct{} { QuicksortThreadPool(p, s[:q], cutoff); return struct{}{} })
	QuicksortThreadPool(p, s[q:], cutoff)
	f.Wait()
}

// QuicksortSubmit is QuicksortThreadPool with pool.Submit on p. Run it on a
// worker of p (inside p.Run) to measure.
func QuicksortSubmit(p *pool.Pool, s []int64, cutoff int) {
	if len(s) < cutoff {
		InsertionSort(s)
		return
	}
	q := Partition(s)
	f := pool.Submit(p, func() struct{} { QuicksortSubmit(p, s[:q], cutoff); return struct{}{} })
	QuicksortSubmit(p, s[q:], cutoff)
	f.Wait()
}
