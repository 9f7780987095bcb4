//go:build linux

package sleep

import "golang.org/x/sys/unix"

// osYield gives the CPU to another runnable thread of the machine, if any,
// without giving up this goroutine's P: a thread-locked goroutine that
// called runtime.Gosched instead would pay a thread hand-off (tens of
// microseconds) to get back.
func osYield() { unix.Syscall(unix.SYS_SCHED_YIELD, 0, 0, 0) }
