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
//
// A worker blocked in the futex system call keeps its P until sysmon
// retakes it (sleep/NOTES.md, "Go specifics"): timers on that P's heap,
// and goroutines in its run queue, wait meanwhile. Where that matters more
// than the futex's faster wake-up (Sleep.StepAside), park waits on a channel instead, which gives the P back
// at once. The word is the token either way; the channel only wakes: unpark
// stores the token, wakes a futex waiter and leaves a wake signal on the
// channel (room for one; a signal left for a futex waiter, or twice, only
// makes a later channel wait look at the word once more).
type parker struct {
	word  atomic.Uint32
	wake  chan struct{}
	aside *atomic.Uint32 // Sleep's reasons to step aside
	// always is set for a slot whose parks always give the P back
	// (Sleep.ParkOnChannel).
	always bool
}

func (p *parker) init(aside *atomic.Uint32) {
	p.wake, p.aside = make(chan struct{}, 1), aside
}

// givesP reports whether the next wait must give the P back at once
// (Sleep.StepAside, Sleep.ParkOnChannel).
func (p *parker) givesP() bool { return p.always || p.aside.Load() != 0 }

func (p *parker) park() {
	for !p.word.CompareAndSwap(1, 0) {
		if p.givesP() {
			<-p.wake
			continue
		}
		// Sleeps only if the word is still 0; spurious returns loop.
		unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(&p.word)), futexWaitPrivate, 0, 0, 0, 0)
	}
}

func (p *parker) unpark() {
	p.word.Store(1)
	unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(&p.word)), futexWakePrivate, 1, 0, 0, 0)
	select {
	case p.wake <- struct{}{}:
	default:
	}
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
		if p.givesP() {
			t := time.NewTimer(left)
			select {
			case <-p.wake:
			case <-t.C:
			}
			t.Stop()
			continue
		}
		ts := unix.NsecToTimespec(int64(left))
		unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(&p.word)), futexWaitPrivate, 0, uintptr(unsafe.Pointer(&ts)), 0, 0)
	}
	return true
}
