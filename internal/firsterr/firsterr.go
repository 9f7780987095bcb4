// Package firsterr is the rule shared by pool's Group and forkjoin's ForErr
// and MapErr: the first error cancels, and what has not started is
// skipped.
package firsterr

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/spindle-go/spindle/runtime"
)

// Stopper is the shared state of a set of tasks under that rule: the first
// failure, and a context cancelled with it as the cause, whose end (or its
// parent's) makes tasks that have not started skip themselves.
//
// The zero value has no context: it records the first failure and never
// skips. Start gives it one.
//
// Invariant: err is written once, by the first failure (inside once),
// before the context is cancelled; it is read (Result, Cancel) only after
// every task has finished.
type Stopper struct {
	done   <-chan struct{} // the context's; nil: never skip
	parent <-chan struct{} // the parent context's; nil: it never ends
	// In a testing/synctest bubble, tasks that run on the workers of a
	// pool made outside it may not receive from a channel the bubble
	// made, as the parent context's done channel is (the runtime's fatal
	// error "receive on synctest channel from outside bubble"), nor call
	// its Err once it has ended (Err receives from that channel). There
	// Skip reads bubbled instead, and done and parent stay nil.
	bubbled *bubbleEnd
	cancel  context.CancelCauseFunc // nil without a context
	once    sync.Once
	failed  atomic.Bool
	err     error
	skipped atomic.Bool // some task was skipped
	// Collect makes Result return every failure, joined (errors.Join) in
	// the order Fail saw them, rather than the first; set it before any
	// task. all holds them (under mu).
	Collect bool
	mu      sync.Mutex
	all     []error
}

// Start derives the tasks' context from parent, to be cancelled with the
// first failure as its cause, and returns it. Call it before any task.
//
// The context makes its done channel on the first call of its Done, and a
// channel made inside a testing/synctest bubble may not be closed from
// outside it, as a worker of a pool made outside would when its task
// fails. So onWorker, if not nil, runs the function it is given on a
// worker of the pool the tasks run on, and Start asks for the channel
// there; callers pass it when they are inside a bubble.
func (s *Stopper) Start(parent context.Context, onWorker func(func())) context.Context {
	ctx, cancel := context.WithCancelCause(parent)
	if onWorker != nil {
		onWorker(func() { ctx.Done() })
	}
	s.cancel = cancel
	if runtime.InSynctestBubble() {
		s.bubbled = watchInBubble(parent)
		return ctx
	}
	s.done, s.parent = ctx.Done(), parent.Done()
	return ctx
}

// Watch is Start for tasks that cannot fail (pool's ScopeContext and
// RunContext): ctx's end skips the tasks that have not started, and no
// context is derived, so there is nothing to cancel or release. Call it
// before any task.
func (s *Stopper) Watch(ctx context.Context) {
	if runtime.InSynctestBubble() {
		s.bubbled = watchInBubble(ctx)
		return
	}
	s.done = ctx.Done()
	s.parent = s.done
}

// Skip reports whether a task that has not started must be skipped, and
// records that one was: a task failed, or the parent context ended. Not
// when Cancel alone ended the context (a group's Wait returned): a task
// queued after that runs, as errgroup's does, with its context done.
// While nothing has happened it is one load of the context's done
// channel, a line nobody writes, and of skipped; once a task was skipped,
// skipped alone answers (a failure and the parent's end are for good):
// a body that goes on spawning after a cancellation pays a load per
// spawn, not two channel receives.
func (s *Stopper) Skip() bool {
	if s.skipped.Load() {
		return true
	}
	if b := s.bubbled; b != nil {
		if !s.failed.Load() && !b.parentEnded.Load() {
			return false
		}
	} else {
		select {
		case <-s.done:
		default:
			return false
		}
		select {
		case <-s.parent:
		default:
			if !s.failed.Load() {
				return false
			}
		}
	}
	s.skipped.Store(true)
	return true
}

// bubbleEnd is how a Stopper in a testing/synctest bubble learns that the
// parent context ended: context.AfterFunc's function, run on a goroutine
// of the bubble, sets parentEnded. A task may start between the end and
// that goroutine's turn; a failure is seen at once (failed). Skip's rule
// is the same: a task is skipped once a task failed or the parent ended
// (the tasks' context ends only so, or by Cancel, which skips nothing).
type bubbleEnd struct {
	parentEnded atomic.Bool
	stop        func() bool // withdraws the registration
}

// watchInBubble registers a bubbleEnd with parent; the caller, in the
// bubble, reads whether parent has ended already, so that a call with a
// context done before it starts skips from its first task on.
func watchInBubble(parent context.Context) *bubbleEnd {
	b := new(bubbleEnd)
	b.parentEnded.Store(parent.Err() != nil)
	b.stop = context.AfterFunc(parent, func() { b.parentEnded.Store(true) })
	return b
}

// release withdraws a bubble's registration (bubbleEnd), once the tasks
// have finished.
func (s *Stopper) release() {
	if b := s.bubbled; b != nil {
		b.stop()
	}
}

// Fail records err as the first failure if it is the first, and then
// cancels the context with it as the cause, before any task that checks
// Skip afterwards can start.
//
// A later failure waits in Fail until the first has cancelled the
// context: the tasks queued behind it on its worker, which start when it
// returns, then find the context done and skip themselves.
func (s *Stopper) Fail(err error) {
	if s.Collect {
		s.mu.Lock()
		s.all = append(s.all, err)
		s.mu.Unlock()
	}
	s.once.Do(func() {
		s.err = err
		s.failed.Store(true)
		if s.cancel != nil {
			s.cancel(err)
		}
	})
}

// Result is the outcome once every task has finished: the first failure
// (with Collect, every failure, joined, when there were several); else,
// if tasks were skipped because parent ended, context.Cause(parent); else
// nil.
func (s *Stopper) Result(parent context.Context) error {
	s.release()
	if s.failed.Load() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if len(s.all) > 1 {
			return errors.Join(s.all...)
		}
		return s.err
	}
	if s.skipped.Load() && parent != nil && parent.Err() != nil {
		return context.Cause(parent)
	}
	return nil
}

// Cancel ends the context (with the first failure as its cause, if there
// was one), releasing it. Call it once every task has finished.
func (s *Stopper) Cancel() {
	s.release()
	if s.cancel != nil {
		s.cancel(s.err)
	}
}
