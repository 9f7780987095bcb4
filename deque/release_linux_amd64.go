//go:build linux && amd64 && !race

package deque

import (
	"sync"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Release stores for Push (see "Memory ordering" in the package doc).
//
// On amd64 every store is a release store (x86-TSO), so Push needs no
// barrier to publish an item; Go's atomic Store is an XCHG, a full
// barrier that was most of a Push's cost. A deque switched to release
// pushes (PublishWithRelease) stores bottom with a plain move instead.
// That takes away the full barrier Push gave callers that load a word of
// their own after pushing (a store-buffering handshake, such as a pool's
// sleep protocol): the other side of such a handshake must call
// SyncWithOwners, a membarrier system call. Release pushes are granted only
// once the process is registered for membarrier.

// Commands of the membarrier system call (linux/membarrier.h).
const (
	membarrierPrivateExpedited         = 1 << 3
	membarrierRegisterPrivateExpedited = 1 << 4
)

var (
	releaseOnce sync.Once
	// membarrierReady is set once the process is registered for private
	// expedited membarrier, before any deque publishes with release
	// stores. Atomic: SyncWithOwners may read it while another goroutine's
	// first PublishWithRelease sets it.
	membarrierReady atomic.Bool
)

// releasePushAvailable registers the process for membarrier (once) and
// reports whether that worked. Registration may wait for a grace period
// of the kernel's (milliseconds) in a process with many threads.
func releasePushAvailable() bool {
	releaseOnce.Do(func() {
		_, _, errno := unix.Syscall(unix.SYS_MEMBARRIER, membarrierRegisterPrivateExpedited, 0, 0)
		membarrierReady.Store(errno == 0)
	})
	return membarrierReady.Load()
}

// storeBottom publishes a Push: the store of bottom, after the slot store.
func storeBottom(p *atomic.Int64, v int64, release bool) {
	if release {
		storeRelease(p, v)
		return
	}
	p.Store(v)
}

// storeRelease stores v in *p with a plain move (release_linux_amd64.s).
//
//go:noescape
func storeRelease(p *atomic.Int64, v int64)

// storeSlot writes v into s with a plain store (and the GC's write
// barrier). Only the owner writes slots. A thief reads a slot with an
// atomic load, after loading bottom, and may read one the owner is
// rewriting for a later index: a word-sized race, whose read sees one of
// the values written (Go's memory model), and the thief's CAS on top then
// fails (see Steal). The store is ordered before the bottom store that
// publishes it: with Go's atomic Store that is a happens-before edge of
// Go's memory model; with storeRelease it is program order, which the
// compiler keeps (the call) and x86-TSO keeps.
func storeSlot[T any](s *atomic.Pointer[T], v *T) {
	*(**T)(unsafe.Pointer(s)) = v
}

// SyncWithOwners is the thieves' half of a store-buffering handshake with
// the owners of deques that publish with release stores
// (PublishWithRelease). Take an owner that (a) pushes an item and then (b)
// loads a word W, and a goroutine that (1) changes W with an atomic
// read-modify-write, then (2) calls SyncWithOwners, then (3) looks at the
// owner's deque: (b) sees the change to W, or (3) sees the item, or both;
// never neither. Without the call both may miss.
//
// It executes a memory barrier on every thread of the process that is
// running at the time (membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED): an
// owner whose push is still in its store buffer drains it, and an owner
// that had not pushed yet loads W after (1). That costs a system call and
// an inter-processor interrupt per running thread, some microseconds: call
// it on slow paths, such as a worker about to sleep. Where no deque can
// publish with release stores (other platforms, race-detector builds,
// kernels without membarrier) it does nothing: the handshake holds
// already. It panics if the system call fails after registration
// succeeded, which the kernel does not do: going on would lose the
// handshake silently.
func SyncWithOwners() {
	if membarrierReady.Load() {
		if _, _, errno := unix.Syscall(unix.SYS_MEMBARRIER, membarrierPrivateExpedited, 0, 0); errno != 0 {
			panic("deque: membarrier failed after registration: " + errno.Error())
		}
	}
}
