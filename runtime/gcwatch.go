package runtime

import "runtime/metrics"

// gcWatch tells the monitor whether the garbage collector may be what a
// waiting worker waits for: an allocation whose assist found no work parks
// its goroutine until the collector's background workers catch up, and a
// goroutine whose stack is scanned is suspended for the scan (a
// millisecond for a deep recursion). Such waits end with the collection;
// a spare started for one would only run queued tasks beside the worker
// and retire.
//
// A collection stops the world twice, as marking begins and as it ends,
// so the count of its pauses is odd while it marks, and moves whenever a
// collection began or ended since the last reading.
type gcWatch struct {
	sample []metrics.Sample
	pauses uint64
}

func newGCWatch() *gcWatch {
	return &gcWatch{sample: []metrics.Sample{{Name: "/sched/pauses/total/gc:seconds"}}}
}

// busy reports whether a collection marks now or began or ended since the
// last call.
func (g *gcWatch) busy() bool {
	metrics.Read(g.sample)
	v := g.sample[0].Value
	if v.Kind() != metrics.KindFloat64Histogram {
		return false
	}
	var pauses uint64
	for _, c := range v.Float64Histogram().Counts {
		pauses += c
	}
	busy := pauses%2 == 1 || pauses != g.pauses
	g.pauses = pauses
	return busy
}
