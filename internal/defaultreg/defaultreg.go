// Package defaultreg gives spindle's own packages the engine registry of
// pool.Default, which pool's API does not show: forkjoin's entry points,
// called from a goroutine that is no worker, hand that registry their
// call's state as a runtime.Work (runtime.Registry.RunWork) rather than a
// closure over it through pool.Default().Run, which would cost a call
// from a goroutine two allocations more. Programs cannot import it.
package defaultreg

import "github.com/spindle-go/spindle/runtime"

// Get returns the registry of pool.Default(). Package pool sets it when it
// is initialised, so it is set before any package that imports pool runs.
var Get func() *runtime.Registry
