// Package engineopt carries package pool's option for the engine's
// research settings (other deques, eager publication, the priority policy
// that ignores levels) to spindle's own packages (internal/experiment),
// so that pool's public API does not show the engine. Programs cannot
// import it; package runtime carries no compatibility promise.
package engineopt

import "github.com/spindle-go/spindle/runtime"

// New is set by package pool's initialization, before any code that
// imports pool runs: it returns the pool.Option (as any, since pool
// imports this package) that applies configure to the engine's settings
// when the pool is built; an error from configure is pool.New's error.
var New func(configure func(*runtime.Config) error) any
