//go:build linux && !spindle_portable

package sleep

import (
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Futex operations (linux/futex.h); x/sys/unix does not define them.
const (
	futexWaitPrivate = 128 + 0 // FUTEX_WAIT | FUTEX_PRIVATE_FLAG
	futexWakePrivate = 128 + 1 // FUTEX_WAKE | FUTEX_PRIVATE_FLAG
)

// Backend names the parker implementation compiled in.
const Backend = "futex"

// parker is a binary semaphore on a futex word: park consumes a token,
// blocking until there is one; unpark provides one. The protocol gives at
// most one token per park (a waker only unparks a worker it found blocked),
// so a token is never lost or doubled.
type parker struct{ word atomic.Uint32 }

func (p *parker) init() {}

func (p *parker) park() {
	for !p.word.CompareAndSwap(1, 0) {
		// Sleeps only if the word is still 0; spurious returns loop.
		unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(&p.word)), futexWaitPrivate, 0, 0, 0, 0)
	}
}

func (p *parker) unpark() {
	p.word.Store(1)
	unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(&p.word)), futexWakePrivate, 1, 0, 0, 0)
}

// parkFor is park with a deadline: it reports whether it consumed a token
// (false: d passed first).
func (p *parker) parkFor(d time.Duration) bool {
	deadline := time.Now().Add(d)
	for !p.word.CompareAndSwap(1, 0) {
		left := time.Until(deadline)
		if left <= 0 {
			return false
		}
		ts := unix.NsecToTimespec(int64(left))
		unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(&p.word)), futexWaitPrivate, 0, uintptr(unsafe.Pointer(&ts)), 0, 0)
	}
	return true
}
