//go:build linux

package sleep

import "golang.org/x/sys/unix"

// osYield gives the CPU to another runnable thread of the machine, if any,
// without giving up this goroutine's P: a thread-locked goroutine that
// called runtime.Gosched instead would pay a thread hand-off (tens of
// microseconds) to get back. RawSyscall, not Syscall: sched_yield never
// blocks, and entering the Go scheduler's syscall state would let sysmon
// take the P away from a worker descheduled inside it for over 20 us.
func osYield() { unix.RawSyscall(unix.SYS_SCHED_YIELD, 0, 0, 0) }
