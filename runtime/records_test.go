package runtime

import (
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
)

// testRecord is a record for outsideRecords' tests: inUse is set while a
// caller holds it.
type testRecord struct{ inUse atomic.Bool }

// The outside callers' cells give back what was put, keep at most
// outsideCells records, and hand a record to one caller at a time while
// callers take and put at once.
func TestOutsideRecordsHandEachRecordToOneCaller(t *testing.T) {
	var cells outsideRecords[testRecord]
	assert.Nil(t, cells.take(), "a record from empty cells")
	kept := make(map[*testRecord]bool)
	for range outsideCells + 8 {
		r := new(testRecord)
		kept[r] = true
		cells.put(r)
	}
	taken := 0
	for r := cells.take(); r != nil; r = cells.take() {
		assert.True(t, kept[r], "a record never put")
		delete(kept, r)
		taken++
	}
	assert.Equal(t, outsideCells, taken, "records kept of %d put", outsideCells+8)

	watchdog(t, func() {
		var twice atomic.Int64
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				for range 20_000 {
					r := cells.take()
					if r == nil {
						r = new(testRecord)
					}
					if !r.inUse.CompareAndSwap(false, true) {
						twice.Add(1)
					}
					r.inUse.Store(false)
					cells.put(r)
				}
			})
		}
		wg.Wait()
		assert.Zero(t, twice.Load(), "records handed to two callers at once")
	})
}
