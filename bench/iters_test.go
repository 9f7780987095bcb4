package bench

import (
	"slices"
	"testing"
)

func TestIterInput(t *testing.T) {
	const n = 1000
	a := IterInput(n)
	s := make([]int64, n)
	Fill(s)
	for i := range a {
		if a[i] != uint64(s[i]) {
			t.Fatalf("IterInput(%d)[%d] = %#x, Fill gives %#x", n, i, a[i], uint64(s[i]))
		}
	}
	// The first value of the peers' xorshift64 from 0x9E3779B97F4A7C15.
	x := Seed
	x ^= x << 13
	x ^= x >> 7
	x ^= x << 17
	if a[0] != x {
		t.Errorf("IterInput(1)[0] = %#x, want %#x", a[0], x)
	}
	if got := IterInput(0); len(got) != 0 {
		t.Errorf("IterInput(0) has %d items", len(got))
	}
}

// iterSizes are the input lengths of the correctness tests: empty, one
// item, fewer items than a chunk or a serial sort, and a few chunks.
var iterSizes = []int{0, 1, 2, 10, 63, 64, 65, 1000, 1025, 20_000, 100_003}

func TestIterKernels(t *testing.T) {
	for _, workers := range []int{1, 2} {
		p := newPool(t, workers)
		for _, n := range iterSizes {
			a := IterInput(n)

			want := IterFilterSerial(a)
			var got []uint64
			p.Run(func() { got = IterFilter(a) })
			if !slices.Equal(got, want) {
				t.Errorf("workers=%d n=%d: IterFilter kept %d items, serial %d (or other items)", workers, n, len(got), len(want))
			}
			for _, x := range want {
				if !IterKeep(x) {
					t.Fatalf("n=%d: IterFilterSerial kept %d", n, x)
				}
			}
			if kept := n - len(want); n > 1000 && (kept < n/4 || kept > n/2) {
				t.Errorf("n=%d: the filter dropped %d items, want about a third", n, kept)
			}

			var sum uint64
			p.Run(func() { sum = IterMapSum(a) })
			if ws := IterMapSumSerial(a); sum != ws {
				t.Errorf("workers=%d n=%d: IterMapSum = %d, serial %d", workers, n, sum, ws)
			}

			if n == 0 {
				var at int
				p.Run(func() { at = IterFindFirst(a, 1) })
				if at != -1 || IterFindFirstSerial(a, 1) != -1 {
					t.Errorf("workers=%d: find-first in an empty slice = %d, want -1", workers, at)
				}
				continue
			}
			targets := []int{0, n / 2, n / 10 * 9, n - 1}
			for _, i := range targets {
				x := a[i]
				ws := IterFindFirstSerial(a, x)
				if ws != i {
					t.Fatalf("n=%d: the item at %d first appears at %d (xorshift64 values repeat?)", n, i, ws)
				}
				var gs int
				p.Run(func() { gs = IterFindFirst(a, x) })
				if gs != ws {
					t.Errorf("workers=%d n=%d: IterFindFirst(a[%d]) = %d, want %d", workers, n, i, gs, ws)
				}
			}
			if x := IterTarget(a); x != a[n/10*9] {
				t.Errorf("n=%d: IterTarget = %d, want a[%d] = %d", n, x, n/10*9, a[n/10*9])
			}
			// 0 is not in a: xorshift64 never leaves a non-zero state.
			var none int
			p.Run(func() { none = IterFindFirst(a, 0) })
			if none != -1 || IterFindFirstSerial(a, 0) != -1 {
				t.Errorf("workers=%d n=%d: find-first of an absent item = %d, want -1", workers, n, none)
			}

			base := IterPairs(a)
			for i, e := range base {
				if e.ID != uint32(i) || uint64(e.Key) != a[i]%1000 {
					t.Fatalf("n=%d: IterPairs[%d] = %+v, item %d", n, i, e, a[i])
				}
			}
			ws := slices.Clone(base)
			IterSortStableSerial(ws)
			if !IterSortedFrom(base, ws) {
				t.Fatalf("n=%d: IterSortStableSerial's output fails IterSortedFrom", n)
			}
			gs := slices.Clone(base)
			p.Run(func() { IterSortStable(gs) })
			if !slices.Equal(gs, ws) || !IterSortedFrom(base, gs) {
				t.Errorf("workers=%d n=%d: IterSortStable differs from slices.SortStableFunc", workers, n)
			}
		}
	}
}

// TestIterSortedFrom checks that the checker rejects what is not the
// stable sort of its input.
func TestIterSortedFrom(t *testing.T) {
	base := IterPairs(IterInput(5000))
	good := slices.Clone(base)
	IterSortStableSerial(good)
	if !IterSortedFrom(base, good) {
		t.Fatal("IterSortedFrom rejects the stable sort")
	}
	if IterSortedFrom(base, base) {
		t.Error("IterSortedFrom accepts the unsorted input")
	}
	if IterSortedFrom(base, good[1:]) {
		t.Error("IterSortedFrom accepts a shorter slice")
	}
	// Two equal keys swapped: sorted, not stable.
	bad := slices.Clone(good)
	for i := 1; i < len(bad); i++ {
		if bad[i-1].Key == bad[i].Key {
			bad[i-1], bad[i] = bad[i], bad[i-1]
			break
		}
	}
	if IterStableSorted(bad) || IterSortedFrom(base, bad) {
		t.Error("the checkers accept equal keys out of ID order")
	}
	// A duplicated pair in place of its neighbour: order kept, not a
	// permutation.
	bad = slices.Clone(good)
	bad[1] = bad[0]
	if IterStableSorted(bad) || IterSortedFrom(base, bad) {
		t.Error("the checkers accept a duplicated pair")
	}
	// A pair whose key is not its item's.
	bad = slices.Clone(good)
	bad[len(bad)-1].Key = 999
	bad[len(bad)-1].ID = uint32(len(bad)) // out of range too
	if IterSortedFrom(base, bad) {
		t.Error("IterSortedFrom accepts a pair not in the input")
	}
	bad = slices.Clone(good)
	last := &bad[len(bad)-1]
	if base[last.ID].Key != 999 {
		last.Key = 999 // still sorted (999 is the largest key), wrong key for its ID
		if IterSortedFrom(base, bad) {
			t.Error("IterSortedFrom accepts a pair with another key")
		}
	}
}
