package runtime

import (
	"github.com/spindle-go/spindle/deque"
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCurrentGIsPerGoroutineAndStable(t *testing.T) {
	const n = 16
	ids := make([]uintptr, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start // all alive at once, so their identities must differ
			ids[i] = currentG()
			grow(64) // a stack copy must not change the identity
			assert.Equal(t, ids[i], currentG())
		}()
	}
	close(start)
	wg.Wait()
	seen := map[uintptr]bool{}
	for _, id := range ids {
		assert.NotZero(t, id)
		assert.False(t, seen[id], "two live goroutines share identity %#x", id)
		seen[id] = true
	}
}

// grow recurses with a large frame to force the goroutine's stack to be
// copied.
func grow(depth int) byte {
	var pad [2048]byte
	pad[depth] = byte(depth)
	if depth == 0 {
		return pad[0]
	}
	return grow(depth-1) + pad[depth]
}

func TestWorkerTableCollisions(t *testing.T) {
	// Identities chosen to land in the same slot: the table must keep all.
	base := uintptr(0x1000)
	ws := collidingWorkers(base, 5)
	for _, w := range ws {
		registerWorker(w)
	}
	for _, w := range ws {
		assert.Same(t, w, lookupWorker(w.g.Load()))
	}
	assert.Nil(t, lookupWorker(base+1))
	for i, w := range ws {
		unregisterWorker(w)
		assert.Nil(t, lookupWorker(w.g.Load()))
		for _, other := range ws[i+1:] {
			assert.Same(t, other, lookupWorker(other.g.Load()))
		}
	}
	assert.Nil(t, overflow.Load())
}

// TestWorkerTableConcurrentWriters has goroutines register and unregister
// workers whose identities share a slot, all at once, as guests do at
// every call: a worker registered is found, one unregistered is not, and
// none is lost to another's write (a worker left in both the slot and the
// overflow list, or in neither, fails one of the lookups).
func TestWorkerTableConcurrentWriters(t *testing.T) {
	base := uintptr(0x2000)
	ws := collidingWorkers(base, 8)
	var wg sync.WaitGroup
	var wrong atomic.Int64
	for _, w := range ws {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 2000 {
				registerWorker(w)
				if lookupWorker(w.g.Load()) != w {
					wrong.Add(1)
				}
				unregisterWorker(w)
				if lookupWorker(w.g.Load()) != nil {
					wrong.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	assert.Zero(t, wrong.Load())
	assert.Nil(t, tableSlot(base).Load())
	assert.Nil(t, overflow.Load())
}

// collidingWorkers returns n workers whose identities, from base up, all
// land in base's slot of the worker table.
func collidingWorkers(base uintptr, n int) []*Worker {
	var ws []*Worker
	for range n {
		g := base
		for tableSlot(g) != tableSlot(base) || contains(ws, g) {
			g += 8
		}
		w := &Worker{}
		w.g.Store(g)
		ws = append(ws, w)
	}
	return ws
}

func contains(ws []*Worker, g uintptr) bool {
	for _, w := range ws {
		if w.g.Load() == g {
			return true
		}
	}
	return false
}

func TestPublicationModes(t *testing.T) {
	for _, eager := range []bool{false, true} {
		var research Research
		if eager {
			research.Deque = eagerChaseLev
		}
		r, err := NewRegistry(Config{Workers: 2, Research: research})
		require.NoError(t, err)
		var sum int
		r.Run("test", func() { sum = joinSum(0, 1<<14) })
		assert.Equal(t, (1<<14)*(1<<14-1)/2, sum, "eager=%v", eager)
		var spawned atomic.Int64
		r.Scope("test", func(s *Scope) {
			for range 1000 {
				s.Spawn(func(*Scope) { spawned.Add(1) })
			}
		})
		assert.EqualValues(t, 1000, spawned.Load())
		require.NoError(t, r.Close())
		for _, w := range r.workers {
			assert.Zero(t, w.privHead, "no private job left behind")
			assert.Zero(t, w.publicLen(), "no public job left behind")
			assert.Zero(t, w.depth, "frames balanced")
		}
	}
}

func joinSum(lo, hi int) int {
	if hi-lo == 1 {
		return lo
	}
	mid := (lo + hi) / 2
	var a, b int
	JoinCurrent("joinSum", func() { a = joinSum(lo, mid) }, func() { b = joinSum(mid, hi) }, nil)
	return a + b
}

func TestNewRegistryRejectsBadWorkerCounts(t *testing.T) {
	for _, n := range []int{-1, 0, MaxWorkers + 1} {
		_, err := NewRegistry(Config{Workers: n})
		assert.Error(t, err, "workers=%d", n)
	}
}

func TestGoroutineIDFallback(t *testing.T) {
	ids := make(chan uintptr, 2)
	for range 2 {
		go func() {
			id := goroutineID()
			grow(16)
			assert.Equal(t, id, goroutineID())
			ids <- id
		}()
	}
	a, b := <-ids, <-ids
	assert.NotZero(t, a)
	assert.NotEqual(t, a, b)
	assert.NotEqual(t, goroutineID(), a)
}

func TestScopeCountsOnTheirOwnCacheLines(t *testing.T) {
	var s Scope
	base := uintptr(unsafe.Pointer(&s))
	local := uintptr(unsafe.Pointer(&s.count.local)) - base
	shared := uintptr(unsafe.Pointer(&s.count.shared)) - base
	if local%falseSharingRange != 0 || shared%falseSharingRange != 0 || shared-local < falseSharingRange || unsafe.Sizeof(s)%falseSharingRange != 0 {
		t.Fatalf("Scope layout: local at %d, shared at %d, size %d; want each count on a line of its own", local, shared, unsafe.Sizeof(s))
	}
}

// eagerChaseLev is the Chase-Lev deque as a variant: every job published
// at once (internal/experiment's DequeChaseLevEager).
func eagerChaseLev() deque.Deque[Job] { return deque.NewChaseLev[Job](256) }
