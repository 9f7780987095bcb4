//go:build amd64 || arm64

package runtime

// haveGPointer: currentG returns the address of the goroutine's g record
// here (gid_asm.go), whose status word goroutineBlocked reads.
const haveGPointer = true

// loadStatus loads the 32-bit word at gp+off atomically (gstate_*.s).
func loadStatus(gp, off uintptr) uint32
