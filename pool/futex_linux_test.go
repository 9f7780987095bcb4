package pool_test

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// futexSleeper is the floor for waking a pool that has gone to sleep: a
// goroutine locked to its OS thread and blocked in the futex system call,
// as a sleeping worker is (package sleep's parker), woken by FUTEX_WAKE.
//
// wake measures the bare wake-up: nothing to find and no protocol to
// follow, the kernel's and the Go scheduler's share, which no pool can
// beat. handoff measures the least a pool of one such thread does to
// start a task: the waker allocates the task's closure and appends it to
// a queue under a mutex before the wake, and the sleeper takes it off
// the queue and calls it.
type futexSleeper struct {
	word   atomic.Uint32
	wokeAt atomic.Int64 // sinceEpoch() at the wake
	seen   chan time.Duration
	stop   atomic.Bool
	mu     sync.Mutex
	tasks  []func()
}

const (
	futexWaitPrivate = 128 + 0 // FUTEX_WAIT | FUTEX_PRIVATE_FLAG
	futexWakePrivate = 128 + 1 // FUTEX_WAKE | FUTEX_PRIVATE_FLAG
)

var epoch = time.Now()

func sinceEpoch() int64 { return int64(time.Since(epoch)) }

// startFutexSleeper starts the sleeper and returns once its goroutine is
// about to block.
func startFutexSleeper() *futexSleeper {
	f := &futexSleeper{seen: make(chan time.Duration)}
	ready := make(chan struct{})
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		close(ready)
		for {
			for !f.word.CompareAndSwap(1, 0) {
				unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(&f.word)), futexWaitPrivate, 0, 0, 0, 0)
			}
			if f.stop.Load() {
				close(f.seen)
				return
			}
			f.mu.Lock()
			tasks := f.tasks
			f.tasks = nil
			f.mu.Unlock()
			if len(tasks) == 0 {
				f.seen <- time.Duration(sinceEpoch() - f.wokeAt.Load())
			}
			for _, t := range tasks {
				t()
			}
		}
	}()
	<-ready
	return f
}

// wake wakes the sleeper and returns how long it took to run.
func (f *futexSleeper) wake() time.Duration {
	f.wokeAt.Store(sinceEpoch())
	f.word.Store(1)
	unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(&f.word)), futexWakePrivate, 1, 0, 0, 0)
	return <-f.seen
}

// handoff queues a task and wakes the sleeper, and returns how long the
// task took to start.
func (f *futexSleeper) handoff() time.Duration {
	t0 := sinceEpoch()
	task := func() { f.seen <- time.Duration(sinceEpoch() - t0) }
	f.mu.Lock()
	f.tasks = append(f.tasks, task)
	f.mu.Unlock()
	f.word.Store(1)
	unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(&f.word)), futexWakePrivate, 1, 0, 0, 0)
	return <-f.seen
}

// close ends the sleeper's goroutine.
func (f *futexSleeper) close() {
	f.stop.Store(true)
	f.word.Store(1)
	unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(&f.word)), futexWakePrivate, 1, 0, 0, 0)
	for range f.seen {
	}
}
