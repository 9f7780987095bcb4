package bench

import (
	"fmt"
	"sync"

	"github.com/sourcegraph/conc"
	"golang.org/x/sync/errgroup"

	"github.com/spindle-go/spindle/forkjoin"
	"github.com/spindle-go/spindle/pool"
)

// The quicksort kernels sort a []int64 in place: median-of-three Hoare
// partition, insertion sort for ranges shorter than cutoff, and, in the
// parallel variants, both halves of every partition forked. They share
// Partition and InsertionSort, so they differ only in how they fork.

// Seed is the xorshift64 state Fill starts from.
const Seed uint64 = 0x9E3779B97F4A7C15

// MinCutoff is the smallest cutoff the quicksort kernels accept:
// Partition needs at least three elements.
const MinCutoff = 3

// DefaultCutoff is the insertion-sort threshold of the peers' workload.
const DefaultCutoff = 32

// Fill overwrites s with the xorshift64 sequence from Seed (shift 13, 7,
// 17) and returns the wrapping sum of the values, for Check.
func Fill(s []int64) (sum int64) {
	x := Seed
	for i := range s {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		s[i] = int64(x)
		sum += int64(x)
	}
	return sum
}

// Sum returns the wrapping sum of s.
func Sum(s []int64) (sum int64) {
	for _, v := range s {
		sum += v
	}
	return sum
}

// Check returns nil if s is sorted in ascending order and its wrapping sum
// is want, and otherwise an error that says what is wrong.
func Check(s []int64, want int64) error {
	for i := 1; i < len(s); i++ {
		if s[i] < s[i-1] {
			return fmt.Errorf("not sorted: s[%d] = %d > s[%d] = %d", i-1, s[i-1], i, s[i])
		}
	}
	if got := Sum(s); got != want {
		return fmt.Errorf("elements changed: sum %d, want %d", got, want)
	}
	return nil
}

// InsertionSort sorts s in place.
func InsertionSort(s []int64) {
	for i := 1; i < len(s); i++ {
		v := s[i]
		j := i
		for ; j > 0 && s[j-1] > v; j-- {
			s[j] = s[j-1]
		}
		s[j] = v
	}
}

// Partition reorders s (len(s) >= 3) around the median of its first,
// middle and last elements and returns p, 0 < p < len(s), such that every
// element of s[:p] is <= every element of s[p:].
func Partition(s []int64) int {
	last, mid := len(s)-1, len(s)/2
	// Order s[0] <= s[mid] <= s[last]: the ends then stop both scans, so
	// the inner loops need no bounds tests of their own.
	if s[mid] < s[0] {
		s[0], s[mid] = s[mid], s[0]
	}
	if s[last] < s[0] {
		s[0], s[last] = s[last], s[0]
	}
	if s[last] < s[mid] {
		s[mid], s[last] = s[last], s[mid]
	}
	pivot := s[mid]
	i, j := 0, last
	for {
		for s[i] < pivot {
			i++
		}
		for s[j] > pivot {
			j--
		}
		if i >= j {
			return j + 1
		}
		s[i], s[j] = s[j], s[i]
		i++
		j--
	}
}

// QuicksortSerial is the baseline: the same recursion without forks.
// cutoff must be at least MinCutoff.
func QuicksortSerial(s []int64, cutoff int) {
	if len(s) < cutoff {
		InsertionSort(s)
		return
	}
	p := Partition(s)
	QuicksortSerial(s[:p], cutoff)
	QuicksortSerial(s[p:], cutoff)
}

// QuicksortDo forks both halves with forkjoin.Do, whose argument type is
// the subslice. Run it on a worker of the pool to measure (inside
// Pool.Run); from any other goroutine forkjoin uses pool.Default().
func QuicksortDo(s []int64, cutoff int) {
	var qsort func([]int64)
	qsort = func(s []int64) {
		if len(s) < cutoff {
			InsertionSort(s)
			return
		}
		p := Partition(s)
		forkjoin.Do(qsort, s[:p], s[p:])
	}
	qsort(s)
}

// QuicksortJoin forks both halves with pool.Join and two closures, on the
// pool of the calling worker.
func QuicksortJoin(s []int64, cutoff int) {
	var qsort func([]int64)
	qsort = func(s []int64) {
		if len(s) < cutoff {
			InsertionSort(s)
			return
		}
		p := Partition(s)
		pool.Join(func() { qsort(s[:p]) }, func() { qsort(s[p:]) })
	}
	qsort(s)
}

// QuicksortWaitGroup sorts the left half of every partition in a new
// goroutine and the right half itself, then waits on a sync.WaitGroup.
func QuicksortWaitGroup(s []int64, cutoff int) {
	if len(s) < cutoff {
		InsertionSort(s)
		return
	}
	p := Partition(s)
	var wg sync.WaitGroup
	wg.Go(func() { QuicksortWaitGroup(s[:p], cutoff) })
	QuicksortWaitGroup(s[p:], cutoff)
	wg.Wait()
}

// QuicksortErrgroup is QuicksortWaitGroup with an errgroup.Group per fork.
func QuicksortErrgroup(s []int64, cutoff int) {
	if len(s) < cutoff {
		InsertionSort(s)
		return
	}
	p := Partition(s)
	var g errgroup.Group
	g.Go(func() error { QuicksortErrgroup(s[:p], cutoff); return nil })
	QuicksortErrgroup(s[p:], cutoff)
	_ = g.Wait() // the function above never fails
}

// QuicksortConc is QuicksortWaitGroup with a conc.WaitGroup per fork.
func QuicksortConc(s []int64, cutoff int) {
	if len(s) < cutoff {
		InsertionSort(s)
		return
	}
	p := Partition(s)
	var wg conc.WaitGroup
	wg.Go(func() { QuicksortConc(s[:p], cutoff) })
	QuicksortConc(s[p:], cutoff)
	wg.Wait()
}
