package bench

import (
	"cmp"
	"slices"
	"sync/atomic"

	"github.com/spindle-go/spindle/forkjoin"
)

// The iterator workloads of the fork-join peers (../shared/peers, ITER_N
// items, 10,000,000 there): over the xorshift64 sequence of IterInput,
//
//   - filter: the items with IterKeep (x%3 != 0), in order, in a new slice;
//   - find-first: the position of the first item equal to IterTarget, the
//     one at index n/10*9;
//   - map-sum: the wrapping sum of IterMix(x) = (x ^ x>>17) * 31;
//   - sort-stable: the stable sort by Key of IterPairs, (x%1000, index).
//
// The Serial kernels are the peers' go-serial code (loops and the slices
// package); the others run spindle's forkjoin algorithms on the current
// pool (call them inside Pool.Run of the pool to measure).

// IterInput returns the first n values of the peers' xorshift64 sequence
// (shifts 13, 7, 17 from Seed): the same values as Fill, unsigned.
func IterInput(n int) []uint64 {
	a := make([]uint64, n)
	x := Seed
	for i := range a {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		a[i] = x
	}
	return a
}

// IterKeep is the filter's predicate.
func IterKeep(x uint64) bool { return x%3 != 0 }

// IterMix is map-sum's map.
func IterMix(x uint64) uint64 { return (x ^ x>>17) * 31 }

// IterTarget returns the item find-first looks for, a[len(a)/10*9]. a
// must not be empty.
func IterTarget(a []uint64) uint64 { return a[len(a)/10*9] }

// IterFilterSerial is the peers' serial filter: an append loop into a
// slice with room for every item.
func IterFilterSerial(a []uint64) []uint64 {
	out := make([]uint64, 0, len(a))
	for _, x := range a {
		if IterKeep(x) {
			out = append(out, x)
		}
	}
	return out
}

// IterFilter is forkjoin.Filter with IterKeep.
func IterFilter(a []uint64) []uint64 { return forkjoin.Filter(a, IterKeep) }

// IterFindFirstSerial returns the index of the first t in a, or -1
// (slices.Index).
func IterFindFirstSerial(a []uint64, t uint64) int { return slices.Index(a, t) }

// IterFindFirst returns the index of the first t in a, or -1
// (forkjoin.Find).
func IterFindFirst(a []uint64, t uint64) int {
	i, _ := forkjoin.Find(a, func(x uint64) bool { return x == t })
	return i
}

// IterMapSumSerial returns the wrapping sum of IterMix over a, a loop.
func IterMapSumSerial(a []uint64) uint64 {
	var s uint64
	for _, x := range a {
		s += IterMix(x)
	}
	return s
}

// IterMapSum returns the wrapping sum of IterMix over a, in parallel:
// forkjoin.For over chunks of For's automatic grain (about 8 per worker),
// each summed in a local variable by the same loop as IterMapSumSerial,
// then added to one atomic total (the sum wraps, so the order of the adds
// does not matter). That is one atomic add per chunk and one allocation
// per call (the closure and the total), none per element. Reduce does not
// fit without a mapped copy of a (its op combines elements of one type,
// so the map cannot be folded into it, short of reducing a slice of
// chunk descriptors); both that and a cache-line-padded slice of
// per-chunk sums summed afterwards measured no faster than the atomic
// adds (10M items, 1 and 2 workers, within noise).
func IterMapSum(a []uint64) uint64 {
	var total atomic.Uint64
	forkjoin.For(0, len(a), 0, func(lo, hi int) {
		var s uint64
		for _, x := range a[lo:hi] {
			s += IterMix(x)
		}
		total.Add(s)
	})
	return total.Load()
}

// IterPair is a sort-stable record: Key = x%1000 (many equal keys, so
// stability shows) and ID = the item's index.
type IterPair struct{ Key, ID uint32 }

// IterPairs returns the pairs of a. len(a) must fit in a uint32.
func IterPairs(a []uint64) []IterPair {
	if uint64(len(a)) > 1<<32 {
		panic("bench.IterPairs: more items than uint32 IDs")
	}
	p := make([]IterPair, len(a))
	for i, x := range a {
		p[i] = IterPair{uint32(x % 1000), uint32(i)}
	}
	return p
}

// iterPairCmp orders pairs by Key only: stability decides the rest.
func iterPairCmp(a, b IterPair) int { return cmp.Compare(a.Key, b.Key) }

// IterSortStableSerial sorts p stably by Key (slices.SortStableFunc).
func IterSortStableSerial(p []IterPair) { slices.SortStableFunc(p, iterPairCmp) }

// IterSortStable sorts p stably by Key (forkjoin.SortStableFunc).
func IterSortStable(p []IterPair) { forkjoin.SortStableFunc(p, iterPairCmp) }

// IterStableSorted reports whether p is in increasing Key order with equal
// keys in increasing ID order: sorted, and stably if p was IterPairs'
// output.
func IterStableSorted(p []IterPair) bool {
	for i := 1; i < len(p); i++ {
		if p[i-1].Key > p[i].Key || p[i-1].Key == p[i].Key && p[i-1].ID >= p[i].ID {
			return false
		}
	}
	return true
}

// IterSortedFrom reports whether p is exactly the stable sort of base, for
// base from IterPairs (base[i].ID == i): p is IterStableSorted and each of
// its pairs is the pair of base with its ID. That makes p a permutation of
// base: the IDs of one key strictly increase, and an ID fixes its key.
func IterSortedFrom(base, p []IterPair) bool {
	if len(p) != len(base) || !IterStableSorted(p) {
		return false
	}
	for _, e := range p {
		if uint64(e.ID) >= uint64(len(base)) || base[e.ID] != e {
			return false
		}
	}
	return true
}
