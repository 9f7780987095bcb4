package pool

import (
	"fmt"

	"github.com/spindle-go/spindle/runtime"
)

// MaxPriority is the most urgent priority level of a spawned task
// (Scope.SpawnPriority, Scope.SpawnManyPriority). Levels run from 0, the
// level of joins, Spawn, Run and futures, to MaxPriority.
const MaxPriority = 3

// PriorityPolicy says how strictly a pool's workers follow priority
// levels; set it with WithPriorityPolicy.
//
// A worker looking for work takes queued tasks of the highest level first:
// its own, then other workers', then those submitted from outside the
// pool, and goes down a level only when it finds none. Priorities decide
// which task a worker starts next; a running task is never interrupted,
// and a worker's own forks (Join, forkjoin) continue the task that forked
// them. Stats.Inversions counts the tasks started while a task of a higher
// level was queued, and Stats.StealsByLevel the steals at each level.
type PriorityPolicy uint8

// The priority policies.
const (
	// PriorityScanAll, the default: before going down a level a worker
	// looks at that level on every other worker. Inversions are rare (a
	// task counted as queued but not yet visible) but possible.
	PriorityScanAll PriorityPolicy = iota
	// PrioritySample: a worker looks at a level on about the square root
	// of the number of other workers (chosen at random) before going
	// down: fewer steal attempts, more inversions.
	PrioritySample
	// PriorityStrict guarantees that no task starts while a task of a
	// higher level is queued. A worker that claimed a task and sees a
	// higher level queued puts the task back and spins until that work
	// is claimed, so throughput may suffer under frequent priority
	// spawns.
	PriorityStrict
)

// The levels and policies are the engine's values, which WithPriorityPolicy
// passes on unconverted: these declarations compile only while they agree.
var (
	_ [0]struct{} = [MaxPriority - runtime.MaxPriority]struct{}{}
	_ [0]struct{} = [PriorityScanAll - PriorityPolicy(runtime.PriorityScanAll)]struct{}{}
	_ [0]struct{} = [PrioritySample - PriorityPolicy(runtime.PrioritySample)]struct{}{}
	_ [0]struct{} = [PriorityStrict - PriorityPolicy(runtime.PriorityStrict)]struct{}{}
)

// String returns the policy's name: "scan-all", "sample", "strict".
func (p PriorityPolicy) String() string { return runtime.PriorityPolicy(p).String() }

// WithPriorityPolicy sets how the pool's workers order tasks of different
// priority levels. The default is PriorityScanAll.
func WithPriorityPolicy(p PriorityPolicy) Option {
	return func(c *config) error {
		if p > PriorityStrict { // PriorityOblivious is an experiment (internal/experiment)
			return fmt.Errorf("pool.WithPriorityPolicy(%d): unknown policy", uint8(p))
		}
		c.Priority = runtime.PriorityPolicy(p)
		return nil
	}
}
