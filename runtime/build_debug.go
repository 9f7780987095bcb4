//go:build spindle_debug

package runtime

// debugChecks turns on the engine's cheap invariant checks (debug.go):
// build or test with -tags spindle_debug. CI runs the engine's and the
// pool's tests that way.
const debugChecks = true
