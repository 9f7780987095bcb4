//go:build !amd64 && !arm64

package runtime

// currentG is the goroutine id parsed from the stack trace (goroutineID):
// correct everywhere but slow (about a microsecond), so architectures
// without the assembly fast path pay it on every off-pool check and fork.
func currentG() uintptr { return goroutineID() }
