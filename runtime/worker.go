package runtime

import (
	"sync/atomic"

	"github.com/spindle-go/spindle/deque"
)

// Worker is one thread of a registry: a goroutine locked to its OS thread
// for its whole life, owning a Chase-Lev deque of jobs.
//
// Only the worker's own goroutine touches its unexported fields, except
// the deque's steal end, the counters and terminate, which are concurrent.
type Worker struct {
	reg   *Registry
	index int
	g     uintptr // currentG of the worker goroutine; the worker table's key
	deque *deque.ChaseLev[Job]
	rng   uint64 // xorshift state for choosing victims

	// frames are the reusable records of joins in progress, one per
	// nesting depth. Joins nest strictly on a worker (a join returns only
	// after everything it started, including work it helped with while
	// waiting), so depth is a stack pointer into frames.
	frames []any
	depth  int

	terminate Latch // set by Close; the worker's main loop waits on it

	steals   atomic.Uint64
	executed atomic.Uint64
}

// Registry returns the registry the worker belongs to.
func (w *Worker) Registry() *Registry { return w.reg }

// Index returns the worker's index in [0, Registry().Workers()).
func (w *Worker) Index() int { return w.index }

// Enter pushes a join frame and returns its slot: the record a join at
// this depth used last time, or nil. The caller type-asserts it to its
// record type, creates (and stores) a new one on mismatch, and calls Leave
// when the join is done, panicking or not.
func (w *Worker) Enter() *any {
	if w.depth == len(w.frames) {
		w.frames = append(w.frames, nil)
	}
	w.depth++
	return &w.frames[w.depth-1]
}

// Leave pops the frame Enter pushed.
func (w *Worker) Leave() { w.depth-- }

// Push makes j available to thieves and announces it to idle workers.
// While no worker is sleepy that announcement is one atomic load.
func (w *Worker) Push(j *Job) {
	wasEmpty := w.deque.Len() == 0
	w.deque.Push(j)
	w.reg.sleep.NewInternalJobs(1, wasEmpty)
}

// TakeBack is the second half of a fork: after the caller ran its own half,
// it looks for j, which it pushed, at the bottom of its deque. If nobody
// stole j, TakeBack returns true and the caller runs j's work itself. If j
// was stolen, TakeBack helps with other work until the thief sets j's latch
// and returns false.
//
// Jobs above j (spawned by the caller's half for an enclosing scope) are
// run on the way. Nothing below j can come back: thieves take the oldest
// job first, so if j was stolen everything older went before it.
func (w *Worker) TakeBack(j *Job) bool {
	for {
		top := w.deque.Pop()
		if top == j {
			return true
		}
		if top == nil {
			w.WaitUntil(&j.Latch)
			return false
		}
		w.execute(top)
	}
}

func (w *Worker) execute(j *Job) {
	w.executed.Add(1)
	j.run()
}

// WaitUntil runs other work (own deque, then steals, then the injector)
// until l is set; without work it goes through the sleep protocol, and
// l's setter wakes it. The caller must own l.
func (w *Worker) WaitUntil(l *Latch) {
	if l.Probe() {
		return
	}
	s := w.reg.sleep
	idle := s.StartLooking(w.index)
	for !l.Probe() {
		if j := w.findWork(); j != nil {
			s.WorkFound()
			w.execute(j)
			idle = s.StartLooking(w.index)
			continue
		}
		s.NoWorkFound(&idle, &l.core, w.reg.injector.nonEmpty)
	}
	s.WorkFound()
}

// findWork looks for a job in the order that keeps work local and old work
// moving: own deque (newest first), a random victim's deque (oldest first),
// then the injector.
func (w *Worker) findWork() *Job {
	if j := w.deque.Pop(); j != nil {
		return j
	}
	if j := w.steal(); j != nil {
		return j
	}
	return w.reg.injector.pop()
}

// steal tries every other worker once, starting at a random one, and starts
// over while some steal lost a race (the victim may still hold work).
func (w *Worker) steal() *Job {
	workers := w.reg.workers
	n := len(workers)
	if n == 1 {
		return nil
	}
	for {
		retry := false
		start := int(w.random() % uint64(n))
		for i := range n {
			v := start + i
			if v >= n {
				v -= n
			}
			if v == w.index {
				continue
			}
			j, res := workers[v].deque.Steal()
			switch res {
			case deque.Success:
				w.steals.Add(1)
				return j
			case deque.Retry:
				retry = true
			}
		}
		if !retry {
			return nil
		}
	}
}

// random is xorshift64 (Marsaglia): fast, and good enough to spread
// victims.
func (w *Worker) random() uint64 {
	x := w.rng
	x ^= x << 13
	x ^= x >> 7
	x ^= x << 17
	w.rng = x
	return x
}

// mainLoop is the worker's life after start-up: help until terminated.
func (w *Worker) mainLoop() { w.WaitUntil(&w.terminate) }
