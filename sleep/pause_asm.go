//go:build amd64 || arm64

package sleep

// pause executes the CPU's spin-wait hint (PAUSE, YIELD) n times (n >= 1):
// it tells the core this is a busy-wait, saving power and the pipeline
// flush at loop exit, and lets a hyper-threaded sibling run.
//
//go:noescape
func pause(n uint32)
