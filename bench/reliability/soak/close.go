package main

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/spindle-go/spindle/pool"
)

// isClosed reports whether v, a recovered panic, is an error wrapping
// pool.ErrClosed: how a closed pool refuses a call.
func isClosed(v any) bool {
	err, ok := v.(error)
	return ok && errors.Is(err, pool.ErrClosed)
}

// closeRun is one operation of the close family: a pool of its own, what
// was handed to it, and what of that ran.
type closeRun struct {
	s       *soak
	r       *rand.Rand
	p       *pool.Pool
	t       *tracked
	zero    bool // t's group is a zero value (it never skips a task)
	inj     *injector
	closing atomic.Bool // Close has been called
	now     bool        // it is CloseNow: detached work not started is dropped

	handed, ran       atomic.Int64 // group tasks
	spawned, spawnRan atomic.Int64 // detached tasks
	futs              []*pool.Future[int]
	refused           int    // calls from outside refused so far
	refusedBy         string // the first of them
}

// closeRace creates a pool, keeps calling it from outside (group Go and
// TryGo, whose tasks queue more tasks from inside, Spawn, Submit, Run
// with joins, Scope, Broadcast, Block in a task) while another goroutine
// closes it at a random moment (with Close, CloseNow, or CloseContext and
// a short deadline and then Close), sometimes with a Wait for the group
// racing too. Each call must either be accepted or panic with an error
// wrapping pool.ErrClosed, and none accepted once one was refused. When
// Close returns, every group task, detached task and future handed over
// must have run (the drop mutant breaks this), but for CloseNow's
// detached tasks and futures, which may have been dropped (a dropped
// future is done and its Err wraps pool.ErrClosed); then every call from
// outside must be refused, a second Close return nil, every worker have
// run its start and exit hooks once, and the workers' threads end
// (watched in the background).
func (s *soak) closeRace(r *rand.Rand, _ *pool.Pool) {
	workers := 1 + r.IntN(4)
	var starts, exits atomic.Int64 // the workers' hooks (WithWorkerHooks)
	opts := []pool.Option{pool.WithWorkers(workers), pool.WithPanicHandler(s.handler),
		pool.WithWorkerHooks(func(int) { starts.Add(1) }, func(int) { exits.Add(1) })}
	locked := r.IntN(4) != 0
	if !locked {
		opts = append(opts, pool.WithLockedThreads(false))
	}
	p, err := pool.New(opts...)
	if err != nil {
		s.violate(famClose, "pool.New: %v", err)
		return
	}
	var tids []int
	if locked && r.IntN(2) == 0 {
		tids = workerThreads(p)
	}
	c := &closeRun{s: s, r: r, p: p, inj: s.newInjector(r, famClose, 16)}
	var g *pool.Group
	if c.zero = r.IntN(2) == 0; c.zero {
		g = new(pool.Group)
		p.Run(func() { g.SetLimit(randomLimit(r)) }) // its first use, on p: the group runs there
	} else {
		g, _ = p.NewGroup(context.Background())
		g.SetLimit(randomLimit(r))
	}
	c.t = &tracked{g: g, closing: &c.closing}

	calls := 4 + r.IntN(24)
	at := r.IntN(calls + 1)
	delay := time.Duration(r.IntN(100)) * time.Microsecond
	// A third of the runs close with CloseContext and a deadline of up
	// to 200 µs, and once it has passed (the pool still closing) with
	// Close, which must wait for the rest of the close and succeed.
	deadline := time.Duration(-1)
	switch r.IntN(3) {
	case 0:
		deadline = time.Duration(r.IntN(200)) * time.Microsecond
	case 1:
		c.now = true
	}
	start := make(chan struct{})
	closed := make(chan error, 1)
	go func() {
		<-start
		if delay > 0 {
			time.Sleep(delay)
		}
		c.closing.Store(true)
		if c.now {
			closed <- p.CloseNow()
			return
		}
		if deadline < 0 {
			closed <- p.Close()
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), deadline)
		err := p.CloseContext(ctx)
		cancel()
		if errors.Is(err, context.DeadlineExceeded) {
			err = p.Close()
		}
		closed <- err
	}()
	for i := range calls {
		if i == at {
			close(start)
		}
		c.call(i)
	}
	if at == calls {
		close(start)
	}
	waited := make(chan any, 1)
	racingWait := r.IntN(3) == 0
	if racingWait {
		go func() { waited <- c.wait() }()
	}
	if err := <-closed; err != nil {
		s.violate(famClose, "Close: %v", err)
	}
	c.checkClosed()
	if racingWait {
		c.checkWait(<-waited)
	} else {
		c.checkWait(c.wait())
	}
	if err := p.Close(); err != nil {
		s.violate(famClose, "second Close: %v", err)
	}
	if q := p.Stats().Queued; q != 0 {
		s.violate(famClose, "%d tasks still queued after Close (Stats.Queued)", q)
	}
	if st, ex := starts.Load(), exits.Load(); st != int64(workers) || ex != int64(workers) {
		s.violate(famClose, "%d workers: %d start hooks and %d exit hooks ran by Close's return, want one each", workers, st, ex)
	}
	s.threads.add(tids)
	s.closed.Add(1)
}

// closeCalls names the calls of the close family, by the number call
// draws.
var closeCalls = [...]string{"Group.Go", "Group.TryGo", "Spawn", "Submit", "Run", "Scope", "Broadcast", "Block in Run"}

// call makes the i-th call from outside the pool, at random, and records
// whether the pool took it.
func (c *closeRun) call(i int) {
	var v any
	kind := c.r.IntN(len(closeCalls))
	switch kind {
	case 0:
		v = catch(func() { c.t.Go(c.s, c.groupTask(i, 0)) })
		if v == nil {
			c.handed.Add(1)
		}
	case 1:
		ok := false
		v = catch(func() { ok = c.t.TryGo(c.s, c.groupTask(i, 0)) })
		if ok {
			c.handed.Add(1)
		} else if v == nil {
			// At the limit TryGo reports that it took nothing, closed
			// pool or not: the slots may be held by tasks Close waits
			// for. Neither taken nor refused.
			return
		}
	case 2:
		v = catch(func() { c.p.Spawn(func() { c.spawnRan.Add(1) }) })
		if v == nil {
			c.spawned.Add(1)
		}
	case 3:
		var f *pool.Future[int]
		v = catch(func() { f = pool.Submit(c.p, func() int { return i }) })
		if v == nil {
			c.futs = append(c.futs, f)
		}
	case 4:
		v = c.s.sumOn(c.r, c.p, famClose, 1+c.r.IntN(256), nil)
	case 5:
		var ran atomic.Int32
		v = catch(func() {
			c.p.Scope(func(sc *pool.Scope) { sc.SpawnMany(8, func(*pool.Scope, int) { ran.Add(1) }) })
		})
		if v == nil && ran.Load() != 8 {
			c.s.violate(famClose, "Scope returned after %d of its 8 tasks", ran.Load())
		}
	case 6:
		var ran atomic.Int32
		v = catch(func() { c.p.Broadcast(func(int) { ran.Add(1) }) })
		if w := c.p.Workers(); v == nil && int(ran.Load()) != w {
			c.s.violate(famClose, "Broadcast returned after %d of its %d workers' calls", ran.Load(), w)
		}
	default:
		ran := false
		v = catch(func() { c.p.Run(func() { pool.Block(func() { time.Sleep(10 * time.Microsecond); ran = true }) }) })
		if v == nil && !ran {
			c.s.violate(famClose, "Run returned, Block's function had not run")
		}
	}
	switch {
	case v == nil:
		if c.refused > 0 {
			c.s.violate(famClose, "call %d (%s) accepted after %s was refused", i, closeCalls[kind], c.refusedBy)
		}
	case isClosed(v):
		if c.refused == 0 {
			c.refusedBy = closeCalls[kind]
		}
		c.refused++
	default:
		c.s.violate(famClose, "call %d (%s) panicked with %v, want an error wrapping pool.ErrClosed", i, closeCalls[kind], v)
	}
}

// groupTask is a task of the run's group: it takes a few microseconds,
// so that tasks are still queued when Close is called, and queues one or
// two more from inside (allowed while Close waits for it).
func (c *closeRun) groupTask(id, depth int) func() error {
	return func() error {
		c.ran.Add(1)
		_ = spin(64 + id%8*64)
		if depth < 2 && id%3 == 0 {
			for j := range 1 + id%2 {
				if v := catch(func() { c.t.Go(c.s, c.groupTask(id+j+1, depth+1)) }); v != nil {
					c.s.violate(famClose, "Go from a task of the pool while it closes: panicked with %v", v)
				} else {
					c.handed.Add(1)
				}
			}
		}
		c.inj.maybe(uint64(id))
		return nil
	}
}

// checkClosed checks the pool once Close has returned.
func (c *closeRun) checkClosed() {
	s := c.s
	h, ran := c.handed.Load(), c.ran.Load()
	switch {
	case ran > h:
		s.violate(famClose, "%d group tasks handed over, %d ran", h, ran)
	case ran < h && (c.zero || c.inj.count() == 0):
		// Only a panic, which cancels a NewGroup's context, may skip.
		s.violate(famClose, "Close returned with %d of the %d group tasks handed over run, and no error", ran, h)
	}
	if sp, r := c.spawned.Load(), c.spawnRan.Load(); r > sp || r < sp && !c.now {
		s.violate(famClose, "Close returned with %d of %d detached tasks run", r, sp)
	}
	for i, f := range c.futs {
		if v, ok := f.TryGet(); !ok {
			s.violate(famClose, "Close returned with future %d of %d unfinished", i, len(c.futs))
			break
		} else if v2 := f.Wait(); v2 != v {
			s.violate(famClose, "future: TryGet %d, Wait %d", v, v2)
		} else if err := f.Err(); err != nil && (!c.now || !errors.Is(err, pool.ErrClosed)) {
			s.violate(famClose, "future %d: Err %v after Close (CloseNow: %v)", i, err, c.now)
		}
	}
	for name, call := range map[string]func(){
		"Run":   func() { c.p.Run(func() {}) },
		"Join":  func() { c.p.Join(func() {}, func() {}) },
		"Scope": func() { c.p.Scope(func(*pool.Scope) {}) },
		"Spawn": func() { c.p.Spawn(func() {}) },
		"Submit": func() {
			pool.Submit(c.p, func() int { return 0 })
		},
		"Group.Go":    func() { c.t.g.Go(func() error { return nil }) },
		"Group.TryGo": func() { c.t.g.TryGo(func() error { return nil }) },
	} {
		if v := catch(call); !isClosed(v) {
			s.violate(famClose, "%s on a closed pool: panicked with %v, want an error wrapping pool.ErrClosed", name, v)
		}
	}
}

// wait calls the group's Wait and returns what it panicked with, or the
// error it returned.
func (c *closeRun) wait() any {
	var err error
	if v := catch(func() { err = c.t.Wait(c.s) }); v != nil {
		return v
	}
	if err != nil {
		return err
	}
	return nil
}

// checkWait checks how the group's Wait ended: v is its panic, or the
// error it returned. No task fails; a panic must be an injected one.
func (c *closeRun) checkWait(v any) {
	if err, ok := v.(error); ok && !isPanicError(err) {
		c.s.violate(famClose, "Wait returned %v, no task failed", err)
		return
	}
	c.s.outcome(famClose, c.inj, v)
}

// isPanicError reports whether err is a *pool.PanicError.
func isPanicError(err error) bool {
	var pe *pool.PanicError
	return errors.As(err, &pe)
}

// workerThreads runs a few tasks per worker of p and returns the threads
// of the workers that ran one (0 is never returned: see threadID).
func workerThreads(p *pool.Pool) []int {
	n := p.Workers()
	tids := make([]atomic.Int64, n)
	p.Scope(func(sc *pool.Scope) {
		sc.SpawnMany(4*n, func(*pool.Scope, int) {
			if w := pool.WorkerIndex(); w >= 0 && w < n {
				tids[w].Store(int64(threadID()))
			}
			_ = spin(2000)
		})
	})
	var out []int
	for i := range tids {
		if t := tids[i].Load(); t != 0 {
			out = append(out, int(t))
		}
	}
	return out
}
