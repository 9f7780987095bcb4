package pool

import (
	"fmt"

	"github.com/spindle-go/spindle/deque"
	"github.com/spindle-go/spindle/runtime"
)

// DequeKind selects the work-stealing deque that WithDeque gives each
// worker. It exists for research: comparing deque algorithms inside a real
// runtime. The default is the fastest.
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

// WithDeque makes every worker use a deque of kind k. Every kind but the
// default publishes each job at once (lazy publication needs Chase-Lev's
// cheap emptiness check on the fork path).
func WithDeque(k DequeKind) Option {
	return func(c *config) error {
		switch k {
		case DequeChaseLev:
			c.Deque = nil
		case DequeChaseLevEager:
			c.Deque = func() deque.Deque[runtime.Job] { return deque.NewChaseLev[runtime.Job](256) }
		case DequeABP:
			c.Deque = func() deque.Deque[runtime.Job] { return deque.NewABP[runtime.Job](boundedDequeCapacity) }
		case DequeBWoS:
			c.Deque = func() deque.Deque[runtime.Job] {
				return deque.NewBWoS[runtime.Job](bwosBlocks, bwosBlockSize)
			}
		case DequeLocked:
			c.Deque = func() deque.Deque[runtime.Job] { return deque.NewLocked[runtime.Job](256) }
		case DequeBulk:
			c.Deque = func() deque.Deque[runtime.Job] { return deque.NewBulk[runtime.Job](bulkSegmentSize) }
		default:
			return fmt.Errorf("pool.WithDeque(%d): unknown deque kind", int(k))
		}
		return nil
	}
}
