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
// barrier to publish an item; Go's atomic Store would be an XCHG, a full
// barrier that was most of a Push's cost. Push's full barrier also did a
// second job for callers that load a word of their own after pushing (a
// store-buffering handshake, such as a pool's sleep protocol); without it
// the other side of such a handshake must call SyncWithOwners, a
// membarrier system call. Release stores are used only once the process
// is registered for membarrier; otherwise Push stays sequentially
// consistent and SyncWithOwners does nothing.

// Commands of the membarrier system call (linux/membarrier.h).
const (
	membarrierPrivateExpedited         = 1 << 3
	membarrierRegisterPrivateExpedited = 1 << 4
)

var (
	releaseOnce sync.Once
	// releasePush is set once, before NewChaseLev returns its first deque,
	// when the process is registered for private expedited membarrier.
	releasePush bool
)

// enableReleaseStores registers the process for membarrier and, if that
// works, switches Push to release stores. NewChaseLev calls it (once).
func enableReleaseStores() {
	releaseOnce.Do(func() {
		_, _, errno := unix.Syscall(unix.SYS_MEMBARRIER, membarrierRegisterPrivateExpedited, 0, 0)
		releasePush = errno == 0
	})
}

// storeBottom publishes a Push: the store of bottom, after the slot store.
func storeBottom(p *atomic.Int64, v int64) {
	if releasePush {
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
// atomic load, speculatively, and may read one the owner is rewriting for
// a later index: a word-sized race, whose read sees one of the values
// written (Go's memory model), and the thief's CAS on top then fails (see
// Steal). The store stays before the bottom store that publishes it:
// program order, kept by the compiler (the bottom store is a call or an
// atomic) and by x86-TSO.
func storeSlot[T any](s *atomic.Pointer[T], v *T) {
	*(**T)(unsafe.Pointer(s)) = v
}

// SyncWithOwners is the thieves' half of a store-buffering handshake with
// the owners of deques, needed because Push publishes with a release
// store and no full barrier. Take an owner that (a) pushes an item and
// then (b) loads a word W, and a goroutine that (1) changes W with an
// atomic read-modify-write, then (2) calls SyncWithOwners, then (3) looks
// at the owner's deque: (b) sees the change to W, or (3) sees the item, or
// both; never neither. Without the call both may miss.
//
// It executes a memory barrier on every thread of the process that is
// running at the time (membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED): an
// owner whose push is still in its store buffer drains it, and an owner
// that had not pushed yet loads W after (1). That costs a system call and
// an inter-processor interrupt per running thread, some microseconds: call
// it on slow paths, such as a worker about to sleep. Where Push is
// sequentially consistent (other platforms, race-detector builds, kernels
// without membarrier) it does nothing: the handshake holds already.
func SyncWithOwners() {
	if releasePush {
		// It cannot fail once registered; if it did, nothing would keep the
		// handshake, so say so rather than lose wake-ups silently.
		if _, _, errno := unix.Syscall(unix.SYS_MEMBARRIER, membarrierPrivateExpedited, 0, 0); errno != 0 {
			panic("deque: membarrier failed after registration: " + errno.Error())
		}
	}
}
