package forkjoin_test

import (
	"fmt"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/spindle-go/spindle/forkjoin"
	"github.com/spindle-go/spindle/internal/xorshift"
)

// seqItems returns n pseudo-random items (xorshift64).
func seqItems(n int) []uint64 {
	s := make([]uint64, n)
	x := uint64(88172645463325252)
	for i := range s {
		xorshift.Next(&x)
		s[i] = x
	}
	return s
}

// mix is a body of about 3 ns: a multiply and, about once in 65536
// items, an atomic add. The add keeps the compiler from dropping the
// work; it is rare so that workers running the body at once do not make
// its shared counter's cache line travel between them (at one item in 64
// that cost up to several ns per item, and 2 workers measured that, not
// ForSeq).
func mix(x uint64, hits *atomic.Int64) {
	if (x^x>>17)*31%65536 == 0 {
		hits.Add(1)
	}
}

// BenchmarkForSeq calls a 3 ns body on 1M items of slices.Values: a serial
// range loop, then ForSeq on 1 and 2 workers. With so cheap a body, what
// the rows measure is the pulling and handing out of items; steals/op
// counts the batches another worker took, wakeups/op the sleeping workers
// woken.
//
//	go test -run '^$' -bench ForSeq -count 6 ./forkjoin
func BenchmarkForSeq(b *testing.B) {
	const n = 1 << 20
	s := seqItems(n)
	var hits atomic.Int64
	f := func(x uint64) { mix(x, &hits) }
	b.Run("impl=serial", func(b *testing.B) {
		for b.Loop() {
			for x := range slices.Values(s) {
				f(x)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/item")
	})
	for _, workers := range []int{1, 2} {
		p := newPool(b, workers)
		b.Run(fmt.Sprintf("impl=forseq/workers=%d", workers), func(b *testing.B) {
			before := p.Stats()
			p.Run(func() {
				for b.Loop() {
					forkjoin.ForSeq(slices.Values(s), f)
				}
			})
			after := p.Stats()
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/item")
			b.ReportMetric(float64(after.Steals-before.Steals)/float64(b.N), "steals/op")
			b.ReportMetric(float64(after.Wakeups-before.Wakeups)/float64(b.N), "wakeups/op")
		})
	}
}
