//go:build !amd64 && !arm64

package runtime

// haveGPointer: currentG is a goroutine id here (gid_other.go), not the
// address of a g record, so goroutine states cannot be read: the monitor
// starts no spare and reports no stall.
const haveGPointer = false

func loadStatus(gp, off uintptr) uint32 { return 0 }
