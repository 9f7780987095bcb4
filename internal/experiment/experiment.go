// Package experiment holds the research variants of spindle's engine,
// for spindle's own benchmarks and tests: other work-stealing deques
// (WithDeque), a priority policy that ignores levels (PriorityOblivious,
// with WithPriorityPolicy), and spawned tasks that do not run their
// descendants in place (WithOneTaskPerRun). They are selected when a pool
// is built, through pool's engine option (internal/engineopt), so that the
// default fork path has no branch for them, and they are not part of the
// public API (the package is internal).
package experiment

import (
	"fmt"

	"github.com/spindle-go/spindle/deque"
	"github.com/spindle-go/spindle/internal/engineopt"
	"github.com/spindle-go/spindle/pool"
	"github.com/spindle-go/spindle/runtime"
)

// DequeKind selects the work-stealing deque that WithDeque gives each
// worker: for comparing deque algorithms inside the real runtime. The
// default is the fastest.
type DequeKind int

const (
	// DequeChaseLev is the default: a Chase-Lev deque with lazy
	// publication (forks stay on a private stack unless a thief could use
	// them).
	DequeChaseLev DequeKind = iota
	// DequeChaseLevEager is Chase-Lev with every job published at once,
	// as in Rayon: the baseline the other variants compare with.
	DequeChaseLevEager
	// DequeABP is Arora, Blumofe and Plaxton's bounded deque.
	DequeABP
	// DequeBWoS is the block-based deque of Wang et al. (OSDI 2023). A
	// thief cannot take jobs in the block the owner is using, so a task
	// that blocks may keep the tasks it spawned from other workers.
	DequeBWoS
	// DequeLocked is a deque behind a mutex.
	DequeLocked
	// DequeBulk is the segmented queue of Kataru, Davarnia and Jannesari.
	// Thieves steal half of a victim's jobs (up to 64) with one CAS
	// (steal-half, as Go's and Tokio's schedulers do), run the oldest and
	// queue the others on their own deque.
	DequeBulk
)

var dequeNames = [...]string{"chaselev", "chaselev-eager", "abp", "bwos", "locked", "bulk"}

func (k DequeKind) String() string {
	if k >= 0 && int(k) < len(dequeNames) {
		return dequeNames[k]
	}
	return fmt.Sprintf("DequeKind(%d)", int(k))
}

// DequeKinds lists every kind, the default first.
func DequeKinds() []DequeKind {
	return []DequeKind{DequeChaseLev, DequeChaseLevEager, DequeABP, DequeBWoS, DequeLocked, DequeBulk}
}

// Sizes of the variants' deques in the pool. A full bounded deque is not an
// error: the job stays on the worker's private stack (a fork) or goes to
// the pool's shared queue (a spawned task).
const (
	boundedDequeCapacity = 1 << 13
	bwosBlocks           = 8
	bwosBlockSize        = 1 << 10
	bulkSegmentSize      = 256
)

// WithDeque makes every worker of the pool use a deque of kind k. Every
// kind but the default publishes each job at once (lazy publication needs
// Chase-Lev's cheap emptiness check on the fork path).
func WithDeque(k DequeKind) pool.Option {
	return withEngine(func(c *runtime.Config) error {
		f, ok := DequeFactory(k)
		if !ok {
			return fmt.Errorf("experiment.WithDeque(%d): unknown deque kind", int(k))
		}
		c.Research.Deque = f
		return nil
	})
}

// DequeFactory returns the engine's runtime.Research.Deque for kind k (nil
// for the default, DequeChaseLev), and false for an unknown kind.
func DequeFactory(k DequeKind) (func() deque.Deque[runtime.Job], bool) {
	switch k {
	case DequeChaseLev:
		return nil, true
	case DequeChaseLevEager:
		return func() deque.Deque[runtime.Job] { return deque.NewChaseLev[runtime.Job](256) }, true
	case DequeABP:
		return func() deque.Deque[runtime.Job] { return deque.NewABP[runtime.Job](boundedDequeCapacity) }, true
	case DequeBWoS:
		return func() deque.Deque[runtime.Job] {
			return deque.NewBWoS[runtime.Job](bwosBlocks, bwosBlockSize)
		}, true
	case DequeLocked:
		return func() deque.Deque[runtime.Job] { return deque.NewLocked[runtime.Job](256) }, true
	case DequeBulk:
		return func() deque.Deque[runtime.Job] { return deque.NewBulk[runtime.Job](bulkSegmentSize) }, true
	}
	return nil, false
}

// withEngine is the pool.Option that applies configure to the engine's
// settings when the pool is built (pool.Option is a function of
// *engineopt.Settings); an error from configure is pool.New's error.
func withEngine(configure func(*runtime.Config) error) pool.Option {
	return func(s *engineopt.Settings) error { return configure(&s.Config) }
}

// WithOneTaskPerRun makes a spawned task of the pool return to its
// worker's wait loop when it ends, instead of running its descendants in
// place (runtime.Research.OneTaskPerRun): the baseline for measuring that.
func WithOneTaskPerRun() pool.Option {
	return withEngine(func(c *runtime.Config) error {
		c.Research.OneTaskPerRun = true
		return nil
	})
}

// PriorityOblivious is the priority policy that ignores levels (every
// task is queued as a level-0 task; inversions are still counted): the
// baseline the policies of pool.WithPriorityPolicy are compared with.
const PriorityOblivious = pool.PriorityPolicy(runtime.PriorityOblivious)

// WithPriorityPolicy is pool.WithPriorityPolicy that also accepts
// PriorityOblivious.
func WithPriorityPolicy(p pool.PriorityPolicy) pool.Option {
	if p != PriorityOblivious {
		return pool.WithPriorityPolicy(p)
	}
	return withEngine(func(c *runtime.Config) error {
		c.Priority = runtime.PriorityPolicy(p)
		return nil
	})
}
