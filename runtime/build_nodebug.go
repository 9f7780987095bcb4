//go:build !spindle_debug

package runtime

// debugChecks is false by default: the checks of debug.go are
// constant-false branches, compiled away.
const debugChecks = false
