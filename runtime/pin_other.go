//go:build !linux

package runtime

// Pinning is Linux-only; elsewhere it is a documented no-op.
func affinityCPUs() []int { return nil }

func pinThread(int) {}

// threadCPUTime is Linux-only; elsewhere analyses time strands with the
// wall clock.
func threadCPUTime() (int64, bool) { return 0, false }
