//go:build !linux

package runtime

// Pinning is Linux-only; elsewhere it is a documented no-op.
func affinityCPUs() []int { return nil }

func pinThread(int) {}
