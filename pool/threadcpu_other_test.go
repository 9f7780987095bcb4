//go:build !linux

package pool_test

import "time"

// threadCPU is Linux-only: elsewhere the tests spin on the wall clock.
func threadCPU() (time.Duration, bool) { return 0, false }
