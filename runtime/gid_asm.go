//go:build amd64 || arm64

package runtime

// currentG returns an identity of the calling goroutine that is unique
// among live goroutines: the address of its runtime g record. A g is
// recycled only after its goroutine exited, and a worker removes itself
// from the worker table before its goroutine exits, so the table never
// maps a recycled g. Cost: two instructions (the g pointer from TLS or the
// g register).
func currentG() uintptr

// haveGPointer: currentG returns the address of the goroutine's g record
// here (currentG above), whose status word goroutineBlocked reads.
const haveGPointer = true

// loadStatus loads the 32-bit word at gp+off atomically (gid_*.s).
func loadStatus(gp, off uintptr) uint32
