//go:build !linux

package pool_test

import "time"

// futexSleeper is the Linux floor of BenchmarkSpawnStart; elsewhere there
// is none (startFutexSleeper returns nil).
type futexSleeper struct{}

func startFutexSleeper() *futexSleeper       { return nil }
func (*futexSleeper) wake() time.Duration    { return 0 }
func (*futexSleeper) handoff() time.Duration { return 0 }
func (*futexSleeper) close()                 {}
