package main

import (
	"fmt"
	"io"
	"math"
	"runtime"
	"text/tabwriter"
	"time"

	"github.com/spindle-go/spindle/deque"
)

var (
	bulkBatchSizes = []int{1, 128, 512, 1024}
	bulkFractions  = []float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6}
)

// runBulkExperiments prints the two tables of the bulk-queue paper's
// experiments, each measured for about cfg.duration in all.
func runBulkExperiments(cfg config, w io.Writer) {
	overhead := clockOverhead()
	fmt.Fprintf(w, "bulk experiments: one goroutine, no concurrent thief; Bulk segments of %d; payload %d B; every operation timed, minus the clock's median overhead of %.0f ns\n\n",
		cfg.blockSize, cfg.payload, overhead)

	cell := cfg.duration / time.Duration(2*len(bulkBatchSizes))
	fmt.Fprintf(w, "push a batch of B items (deque drained, untimed, whenever it holds %d or more)\n", cfg.capacity)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "B\tBulk.PushBatch p50 ns\tp99\tns/item\tChaseLev B×Push p50 ns\tp99\tns/item\t")
	for _, b := range bulkBatchSizes {
		batch := newItems(b, cfg.payload)
		bulk := timePushes(cell, overhead, cfg, func() deque.Deque[item] { return deque.NewBulk[item](cfg.blockSize) },
			func(d deque.Deque[item]) { d.(*deque.Bulk[item]).PushBatch(batch) })
		cl := timePushes(cell, overhead, cfg, func() deque.Deque[item] { return deque.NewChaseLev[item](cfg.capacity) },
			func(d deque.Deque[item]) {
				c := d.(*deque.ChaseLev[item])
				for _, v := range batch {
					c.Push(v)
				}
			})
		fmt.Fprintf(tw, "%d\t%.0f\t%.0f\t%.2f\t%.0f\t%.0f\t%.2f\t\n",
			b, bulk.p50, bulk.p99, bulk.p50/float64(b), cl.p50, cl.p99, cl.p50/float64(b))
	}
	tw.Flush()
	fmt.Fprintln(w)

	cell = cfg.duration / time.Duration(2*len(bulkFractions))
	fmt.Fprintf(w, "steal a fraction f of a deque of %d items (refilled, untimed, after every steal)\n", cfg.capacity)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "f\titems\tBulk.StealFraction p50 ns\tp99\tns/item\tChaseLev items×Steal p50 ns\tp99\tns/item\t")
	pool := newItems(cfg.capacity, cfg.payload)
	for _, f := range bulkFractions {
		k := int(math.Ceil(f * float64(cfg.capacity)))
		buf := make([]*item, cfg.capacity)
		bulk := timeSteals(cell, overhead, pool, deque.NewBulk[item](cfg.blockSize), func(d deque.Deque[item]) int {
			n, _ := d.(*deque.Bulk[item]).StealFraction(f, buf)
			return n
		})
		cl := timeSteals(cell, overhead, pool, deque.NewChaseLev[item](cfg.capacity), func(d deque.Deque[item]) int {
			n := 0
			for range k {
				if _, r := d.Steal(); r == deque.Success {
					n++
				}
			}
			return n
		})
		fmt.Fprintf(tw, "%.0f%%\t%d\t%.0f\t%.0f\t%.2f\t%.0f\t%.0f\t%.2f\t\n",
			100*f, k, bulk.p50, bulk.p99, bulk.p50/float64(k), cl.p50, cl.p99, cl.p50/float64(k))
	}
	tw.Flush()
}

// timePushes times push (one batch) on a deque from mk for about d,
// draining the deque untimed whenever it holds cfg.capacity or more.
func timePushes(d time.Duration, overhead float64, cfg config, mk func() deque.Deque[item], push func(deque.Deque[item])) latency {
	q := mk()
	s := newSampler(3)
	sink := 0
	for end := time.Now().Add(d); time.Now().Before(end); {
		for range 64 {
			t0 := time.Now()
			push(q)
			s.add(time.Since(t0))
			if q.Len() >= cfg.capacity {
				for v := q.Pop(); v != nil; v = q.Pop() {
					sink += consume(v)
				}
			}
		}
	}
	runtime.KeepAlive(sink)
	return summarize(overhead, s)
}

// timeSteals times steal (which takes a share of the items) on q for about
// d, refilling q with pool untimed before every steal and emptying it
// after.
func timeSteals(d time.Duration, overhead float64, pool []*item, q deque.Deque[item], steal func(deque.Deque[item]) int) latency {
	s := newSampler(5)
	for end := time.Now().Add(d); time.Now().Before(end); {
		for range 16 {
			for _, v := range pool {
				q.TryPush(v)
			}
			t0 := time.Now()
			n := steal(q)
			s.add(time.Since(t0))
			if n == 0 {
				panic("dequebench: a steal from a full deque took nothing")
			}
			for q.Pop() != nil {
			}
		}
	}
	return summarize(overhead, s)
}
