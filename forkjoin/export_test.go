package forkjoin

import (
	"cmp"

	"github.com/spindle-go/spindle/internal/defaultreg"
)

// SortCutoff is Sort with a given serial cutoff: small cutoffs make small
// inputs go through the parallel partitioning that Sort keeps for large
// ones.
func SortCutoff[E cmp.Ordered](s []E, cutoff int) { sortOrdered(s, cutoff) }

// SortFuncCutoff is SortFunc with a given serial cutoff.
func SortFuncCutoff[E any](s []E, cmp func(a, b E) int, cutoff int) { sortFunc(s, cmp, cutoff) }

// SortCutoffDefault is the cutoff Sort and SortFunc use.
const SortCutoffDefault = sortCutoff

// ForHalving is For as it was before bulk spawning: the range halved
// recursively with Do. For comparison in benchmarks.
func ForHalving(lo, hi, grain int, body func(lo, hi int)) {
	n := uint(hi) - uint(lo)
	if grain <= 0 {
		grain = autoGrain(n)
	}
	topDo(forRange, nil, forTask{lo, hi, grain, body}, n > uint(grain))
}

// MapSeqInFlightPerWorker bounds the items a MapSeq holds per worker of
// its pool: pulled, and not yet handed to the consumer.
const MapSeqInFlightPerWorker = mapSeqQueued * seqMaxBatch

// PartitionOrdered is Sort's partition: it picks a pivot, moves it to the
// index it returns and the other elements to its sides.
func PartitionOrdered[E cmp.Ordered](s []E) int {
	m := pivotOrdered(s)
	return partitionOrdered(s, m, inRunsOrdered(s, s[m]), nil)
}

// BlockSize is how many elements the block partition classifies at a time.
const BlockSize = blockSize

// DefaultMonitorRounds is how many rounds the default pool's blocked-task
// monitor has begun: the clock that makes a serial call overdue.
func DefaultMonitorRounds() uint32 { return defaultreg.Registry().MonitorRounds() }

// SetScanSerial sets the length up to which Min, Max, Index, Contains,
// Equal, IsSorted and IsSortedFunc run their slices functions, and
// returns a function that restores it.
func SetScanSerial(n int) (restore func()) {
	old := scanSerial
	scanSerial = n
	return func() { scanSerial = old }
}
