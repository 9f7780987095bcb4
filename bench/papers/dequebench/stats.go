package main

import (
	"slices"
	"time"
)

// sampler keeps a uniform random sample of at most maxSamples latencies,
// timing one call in every sampleEvery (reservoir sampling). One
// goroutine owns each sampler; the padding keeps samplers of different
// goroutines off each other's cache lines.
type sampler struct {
	_       [128]byte
	calls   uint64
	seen    uint64 // timed calls so far
	samples []int64
	rng     uint64
	_       [128]byte
}

const (
	sampleEvery = 64 // a power of two
	maxSamples  = 1 << 16
)

func newSampler(seed uint64) *sampler {
	return &sampler{samples: make([]int64, 0, maxSamples), rng: seed | 1}
}

// due reports whether this call should be timed.
func (s *sampler) due() bool {
	s.calls++
	return s.calls&(sampleEvery-1) == 0
}

// add records one timed call.
func (s *sampler) add(d time.Duration) {
	s.seen++
	if len(s.samples) < maxSamples {
		s.samples = append(s.samples, int64(d))
		return
	}
	// xorshift64: cheap, and good enough to pick a slot.
	s.rng ^= s.rng << 13
	s.rng ^= s.rng >> 7
	s.rng ^= s.rng << 17
	if j := s.rng % s.seen; j < maxSamples {
		s.samples[j] = int64(d)
	}
}

// latency is a summary of samples, net of the clock's overhead.
type latency struct {
	p50, p99 float64 // ns
	n        int
}

// summarize merges samplers and returns the median and 99th percentile,
// minus overhead (the clock's own median cost per timed call), clamped at
// 0.
func summarize(overhead float64, ss ...*sampler) latency {
	var all []int64
	for _, s := range ss {
		all = append(all, s.samples...)
	}
	if len(all) == 0 {
		return latency{}
	}
	slices.Sort(all)
	at := func(q float64) float64 {
		return max(float64(all[min(len(all)-1, int(q*float64(len(all))))])-overhead, 0)
	}
	return latency{p50: at(0.50), p99: at(0.99), n: len(all)}
}

// clockOverhead returns the median time between two back-to-back reads of
// the clock as the benchmark takes them: what a timed call costs on top of
// the call.
func clockOverhead() float64 {
	s := newSampler(1)
	for range 20000 {
		t0 := time.Now()
		s.add(time.Since(t0))
	}
	return summarize(0, s).p50
}
