package runtime

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
)

// TestWorkerLayout pins what Worker's layout does for the fork path
// (worker.go): the fields every fork touches (Enter and TryTakeBack:
// slots, depth, privHead) share one 64-byte line;
// offer, which thieves write, has falseSharingRange bytes on both sides;
// and the padding at both ends keeps a worker's writes off its
// neighbour's lines. A field added in the wrong place fails it.
func TestWorkerLayout(t *testing.T) {
	var w Worker
	first, last := unsafe.Offsetof(w.slots), unsafe.Offsetof(w.privHead)+unsafe.Sizeof(w.privHead)
	for _, f := range []struct {
		name      string
		off, size uintptr
	}{
		{"slots", unsafe.Offsetof(w.slots), unsafe.Sizeof(w.slots)},
		{"depth", unsafe.Offsetof(w.depth), unsafe.Sizeof(w.depth)},
		{"privHead", unsafe.Offsetof(w.privHead), unsafe.Sizeof(w.privHead)},
	} {
		first, last = min(first, f.off), max(last, f.off+f.size)
	}
	// A Worker sits at an address that is some offset past a 64-byte
	// boundary (the allocator's header: 8 bytes on Go 1.22 and later for
	// objects of this size); the fields must share a line there.
	heapWorker = new(Worker)
	base := uintptr(unsafe.Pointer(heapWorker)) % 64
	assert.Equal(t, (base+first)/64, (base+last-1)/64,
		"the fork path's fields (offsets %d to %d, the Worker %d bytes past a line) cross a 64-byte boundary", first, last, base)
	assert.GreaterOrEqual(t, unsafe.Offsetof(w.reg), uintptr(falseSharingRange), "no padding before the first field")
	before := unsafe.Offsetof(w.stealsLost) + unsafe.Sizeof(w.stealsLost)
	assert.GreaterOrEqual(t, unsafe.Offsetof(w.offer)-before, uintptr(falseSharingRange), "offer shares a line with the fields before it")
	after := unsafe.Sizeof(w) - (unsafe.Offsetof(w.offer) + unsafe.Sizeof(w.offer))
	assert.GreaterOrEqual(t, after, uintptr(falseSharingRange), "offer shares a line with what follows the Worker")
}

// heapWorker makes TestWorkerLayout's Worker escape to the heap, where
// the registry's are.
var heapWorker *Worker
