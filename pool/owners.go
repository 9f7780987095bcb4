package pool

import (
	"sync"
	"sync/atomic"

	"github.com/spindle-go/spindle/runtime"
)

// owners maps each engine registry that pool made (every Pool's, and the
// analysis registry) to its Pool, for Current and the other calls that
// start from the worker running them. pool keeps the way back itself: the
// engine has no use for what wraps it. Lookups are the frequent side (a
// forkjoin call from a worker asks for Current's size), additions and
// removals happen at New, Close and the first analysis, so the map is
// copied on write and read without a lock: one atomic load and a lookup
// in a map no one writes.
var owners struct {
	mu sync.Mutex // serialises writers
	m  atomic.Pointer[map[*runtime.Registry]*Pool]
}

// setOwner records p as r's Pool.
func setOwner(r *runtime.Registry, p *Pool) {
	updateOwners(func(m map[*runtime.Registry]*Pool) { m[r] = p })
}

// dropOwner forgets r, whose workers have stopped.
func dropOwner(r *runtime.Registry) {
	updateOwners(func(m map[*runtime.Registry]*Pool) { delete(m, r) })
}

func updateOwners(change func(map[*runtime.Registry]*Pool)) {
	owners.mu.Lock()
	defer owners.mu.Unlock()
	m := make(map[*runtime.Registry]*Pool)
	if old := owners.m.Load(); old != nil {
		for k, v := range *old {
			m[k] = v
		}
	}
	change(m)
	owners.m.Store(&m)
}

// poolOf returns the Pool of r, a registry that runs a worker: setOwner
// ran before r's first task.
func poolOf(r *runtime.Registry) *Pool { return (*owners.m.Load())[r] }
