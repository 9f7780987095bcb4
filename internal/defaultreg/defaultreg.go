// Package defaultreg hands the default pool's registry to spindle's own
// packages: forkjoin asks it whether a call from a goroutine runs serially
// (runtime.Registry.EnterSerialCall), and pool's API, which does not show
// the engine, has no call for that. Programs cannot import it.
package defaultreg

import "github.com/spindle-go/spindle/runtime"

// Registry returns the registry of pool.Default(), making the default pool
// if none is yet, with pool.Default's panics. Package pool sets it when it
// is initialised, before any package that imports pool can call it.
var Registry func() *runtime.Registry
