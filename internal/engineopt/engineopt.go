// Package engineopt holds the settings that pool's options write:
// pool.Option is a function of *Settings. spindle's own packages
// (internal/experiment) build options for the engine's research settings
// (other deques, eager publication, the priority policy that ignores
// levels) as such functions, so pool's public API does not show the
// engine and needs no hook to make them. Programs cannot import it;
// package runtime carries no compatibility promise.
package engineopt

import "github.com/spindle-go/spindle/runtime"

// Settings is what pool.New's options configure: the engine's settings.
type Settings struct{ runtime.Config }
