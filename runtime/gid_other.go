//go:build !amd64 && !arm64

package runtime

// currentG is the goroutine id parsed from the stack trace (goroutineID):
// correct everywhere but slow (about a microsecond), so architectures
// without the assembly fast path pay it on every off-pool check and fork.
func currentG() uintptr { return goroutineID() }

// haveGPointer: currentG is a goroutine id here (gid_other.go), not the
// address of a g record, so goroutine states cannot be read: the monitor
// starts no spare and reports no stall.
const haveGPointer = false

func loadStatus(gp, off uintptr) uint32 { return 0 }
