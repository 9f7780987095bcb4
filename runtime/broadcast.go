package runtime

import (
	"sync"
	"sync/atomic"
)

// Broadcasts: a function run once on each of the registry's workers
// (Registry.Broadcast), Rayon's broadcast.
//
// Each worker has an inbox of jobs that only it may run. A worker takes
// from it in findWork, after its own deque and before stealing, so it
// runs its share the next time it looks for work: at once if it is idle,
// after the task it is running otherwise (or while that task waits in a
// join or a scope, as it would run any job then). The poster makes each
// target look:
//
//   - a worker asleep in the sleep protocol is woken (WakeSleeping), and
//     one about to sleep sees the inbox in its last check (stayAwake),
//     made under the same lock as the wake;
//   - a worker parked past the running count (size.go) is unparked as
//     wakeParked does, and one about to park sees the inbox in the check
//     parkSurplus makes under sizing.mu, which the poster takes too.
//
// A worker in an isolated wait (isolate.go), or parked on a latch at the
// help limit, takes no inbox job until that wait ends. That wait cannot
// depend on the broadcast, because Broadcast refuses callers inside the
// registry's own tasks: every wait of a worker ends without it, and then
// the worker looks and takes its share.

// inbox holds the jobs posted to one worker for it alone.
type inbox struct {
	n    atomic.Int32 // len(jobs), read without mu by the worker's search
	mu   sync.Mutex
	jobs []*Job
}

// pending reports whether the inbox holds a job.
func (b *inbox) pending() bool { return b.n.Load() != 0 }

func (b *inbox) post(j *Job) {
	b.mu.Lock()
	b.jobs = append(b.jobs, j)
	b.n.Store(int32(len(b.jobs)))
	b.mu.Unlock()
}

// take removes and returns the oldest job, or nil.
func (b *inbox) take() *Job {
	if !b.pending() {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.jobs) == 0 {
		return nil
	}
	j := b.jobs[0]
	b.jobs[0] = nil
	b.jobs = b.jobs[1:]
	b.n.Store(int32(len(b.jobs)))
	return j
}

// broadcast is one Broadcast call: its function, the shares not yet done,
// the first panic, and how its caller waits (the latch of a worker of
// another registry, or the handoff of a goroutine that is no worker).
type broadcast struct {
	reg   *Registry
	f     func(worker int)
	left  atomic.Int32
	panic atomic.Pointer[PanicError]
	latch Latch // its owner is nil for a caller that is no worker
	done  handoff
}

// broadcastShare is the job of one worker's share.
type broadcastShare struct {
	job    Job
	b      *broadcast
	worker int
}

func (s *broadcastShare) Run(*Worker) {
	b := s.b
	if pe := b.reg.Catch(func() { b.f(s.worker) }); pe != nil {
		b.panic.CompareAndSwap(nil, pe)
	}
	if b.left.Add(-1) != 0 {
		return
	}
	if b.latch.owner == nil {
		b.done.signal()
	} else {
		b.latch.Set()
	}
}

// Broadcast runs f(i) once on each worker of r, i being the worker's
// index (WorkerIndex), for the workers that Workers counts when it is
// called (neither spares nor guests), and returns when every share has
// returned; the first panic of a share is re-raised then as a
// *PanicError. A worker runs its share when it next looks for work (see
// above). From a task of r (a worker or a guest of it) it panics: such a
// caller would wait for shares that its own wait may hold back. call
// names the public function.
func (r *Registry) Broadcast(call string, f func(worker int)) {
	w := CurrentWorker()
	if w != nil && (w.reg == r || w.analysing) {
		panic(call + ": called from a task of the pool, whose workers it would wait for")
	}
	r.enter(call)
	defer r.leave()
	z := &r.sizing
	z.mu.Lock()
	targets := z.ranked[:min(int(z.size.Load()), len(z.ranked))]
	if len(targets) == 0 { // no worker made: nothing would end the wait
		z.mu.Unlock()
		return
	}
	b := &broadcast{reg: r, f: f}
	b.left.Store(int32(len(targets)))
	if w == nil {
		b.done.arm(r)
	} else {
		b.latch.owner = w // a worker of another registry, helping it
	}
	shares := make([]broadcastShare, len(targets))
	for i, t := range targets {
		s := &shares[i]
		s.b, s.worker = b, t.index
		s.job.Init(s, nil)
		s.job.takeLabels()
		t.inbox.post(&s.job)
		r.unpark(t)
	}
	r.noteCrowded()
	z.mu.Unlock()
	for _, t := range targets {
		r.sleep.WakeSleeping(t.index)
	}
	if w == nil {
		b.done.wait(r)
	} else {
		w.waitUntil(&b.latch, false)
	}
	r.Raise(b.panic.Load())
}
