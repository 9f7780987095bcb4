//go:build linux && !spindle_portable

package runtime

import (
	"sync/atomic"
	"syscall"
	"unsafe"
)

// Joins from goroutines that are no worker, without letting a escape.
//
// Join(a, b) calls a in place on a worker, so a can live on its caller's
// stack: in fib, the closure for a and the variable it writes cost no
// allocation. A goroutine that is no worker must hand a to a worker, and
// storing a where a worker can reach it would make every call site's a
// escape to the heap. JoinOffPool hands over a's address without the
// compiler seeing it, which is sound only because the caller's stack
// cannot move while a worker uses it.
//
// A goroutine's stack moves when it grows (in a function prologue of that
// goroutine) or when the GC shrinks it, which the runtime does only while
// the goroutine is stopped at a synchronous safe point and never while it
// is in a system call (isShrinkStackSafe checks g.syscallsp). So the
// caller:
//
//  1. injects the job without a: a worker that takes the job first waits
//     for step 2 (awaitPinned);
//  2. in one nosplit function (pinAndWait: no prologue, so no stack growth
//     and no synchronous preemption) publishes a's current address, then
//     blocks in the futex system call until the worker is done. Returns
//     from a spurious wakeup go through exitsyscall, which keeps
//     g.syscallsp set until the goroutine is running again, and straight
//     back into the system call.
//
// Everything pinAndWait calls is nosplit too: syscall.Syscall6 (and the
// runtime's entersyscall and exitsyscall behind it) and the sync/atomic
// functions (not the atomic types' methods, which are ordinary functions
// when inlining is off). As a backstop, JoinOffPool checks that its frame
// is where it was and crashes if not: that would mean the reasoning above
// no longer holds for this Go release. The one known exception is
// GODEBUG=gcstoptheworld=1, under which exitsyscall may yield after a
// spurious wakeup; the check catches it.
//
// The worker writes through a into the caller's stack (a's captured
// variables) with the compiler's usual write barriers, as a channel
// send writes into a blocked receiver's stack; the GC accepts pointers
// into stacks (findObject ignores them).

// Futex operations (linux/futex.h), as in package sleep.
const (
	futexWaitPrivate = 128 + 0 // FUTEX_WAIT | FUTEX_PRIVATE_FLAG
	futexWakePrivate = 128 + 1 // FUTEX_WAKE | FUTEX_PRIVATE_FLAG
)

// States of offPoolJoin.pinned.
const (
	notPinned     = 0
	workerWaiting = 2 // a worker waits on the futex for the caller to pin
	pinned        = 1
)

// offPoolJoin carries Join(a, b) from a goroutine that is no worker.
type offPoolJoin struct {
	job   Job
	a     uintptr // a's func value; valid once pinned is 1
	b     func()
	panic *PanicError
	// pinned and done are futex words, accessed with the sync/atomic
	// functions only (see pinAndWait).
	pinned uint32 // notPinned, workerWaiting or pinned
	done   uint32 // 1 once a and b have returned
}

// Run executes the join on the worker that took the job, then releases
// the caller. It touches neither a nor the caller's stack after done.
func (j *offPoolJoin) Run() {
	j.awaitPinned()
	a := *(*func())(unsafe.Pointer(&j.a))
	w := CurrentWorker()
	j.panic = catchJoin(w, a, j.b)
	j.a, j.b = 0, nil
	w.readiedCaller = true // see Worker.handOffP
	atomic.StoreUint32(&j.done, 1)
	futex(&j.done, futexWakePrivate, 1)
}

// awaitPinned returns once the caller has published a. The caller is
// usually past that point already; if not, it is a few instructions away,
// unless it was descheduled, so the worker spins briefly, then sleeps in
// a system call that lets the runtime give the caller this worker's P.
func (j *offPoolJoin) awaitPinned() {
	for range 1000 {
		if atomic.LoadUint32(&j.pinned) == pinned {
			return
		}
	}
	if atomic.CompareAndSwapUint32(&j.pinned, notPinned, workerWaiting) {
		for atomic.LoadUint32(&j.pinned) != pinned {
			futex(&j.pinned, futexWaitPrivate, workerWaiting)
		}
	}
}

func catchJoin(w *Worker, a, b func()) (pe *PanicError) {
	defer Recover(&pe)
	w.Join(a, b)
	return nil
}

// JoinOffPool runs Join(a, b) on a worker of r and blocks the caller, which
// must be no worker of any registry, until both have returned. a does not
// escape (see above); the job record is the only allocation besides b.
func (r *Registry) JoinOffPool(call string, a, b func()) {
	r.enter(call)
	defer r.leave()
	j := &offPoolJoin{b: b}
	j.job.Init(j, nil)
	r.inject(&j.job)

	var mark byte
	before := uintptr(unsafe.Pointer(&mark))
	pinAndWait(j, a)
	if uintptr(unsafe.Pointer(&mark)) != before {
		panic("spindle: internal error: the caller's stack moved during an off-pool Join")
	}
	if j.panic != nil {
		panic(j.panic)
	}
}

// pinAndWait publishes a and blocks until j is done, with no point at which
// the calling goroutine's stack could move (see above).
//
//go:nosplit
func pinAndWait(j *offPoolJoin, a func()) {
	j.a = uintptr(*(*unsafe.Pointer)(unsafe.Pointer(&a)))
	if atomic.SwapUint32(&j.pinned, pinned) == workerWaiting {
		syscall.RawSyscall6(syscall.SYS_FUTEX, uintptr(unsafe.Pointer(&j.pinned)), futexWakePrivate, 1, 0, 0, 0)
	}
	for atomic.LoadUint32(&j.done) == 0 {
		syscall.Syscall6(syscall.SYS_FUTEX, uintptr(unsafe.Pointer(&j.done)), futexWaitPrivate, 0, 0, 0, 0)
	}
}

// futex is a futex system call that lets the runtime hand the caller's P
// to another thread while it blocks.
func futex(addr *uint32, op, val uintptr) {
	syscall.Syscall6(syscall.SYS_FUTEX, uintptr(unsafe.Pointer(addr)), op, val, 0, 0, 0)
}
