package forkjoin_test

import (
	"cmp"
	"slices"
	"testing"

	"github.com/spindle-go/spindle/forkjoin"
)

// FuzzSort sorts int64 values decoded from the input with Sort and
// SortFunc, through the parallel partitioning (small cutoffs), and
// compares the results with slices.Sort.
//
// Encoding: data[0]%32+1 is the cutoff; data[1], if present, folds the
// values modulo data[1]+1 when it is below 128 (many equal keys) and
// leaves them alone otherwise; every following pair of bytes is one int16
// value, little-endian.
func FuzzSort(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 2 {
			return
		}
		cutoff := int(data[0]%32) + 1
		fold := int64(0)
		if data[1] < 128 {
			fold = int64(data[1]) + 1
		}
		data = data[2:]
		in := make([]int64, len(data)/2)
		for i := range in {
			v := int64(int16(uint16(data[2*i]) | uint16(data[2*i+1])<<8))
			if fold != 0 {
				v %= fold
			}
			in[i] = v
		}
		want := slices.Clone(in)
		slices.Sort(want)

		got := slices.Clone(in)
		forkjoin.SortCutoff(got, cutoff)
		if !slices.Equal(want, got) {
			t.Fatalf("Sort, cutoff %d:\n got %v\nwant %v\n  in %v", cutoff, got, want, in)
		}
		got = slices.Clone(in)
		forkjoin.SortFuncCutoff(got, cmp.Compare[int64], cutoff)
		if !slices.Equal(want, got) {
			t.Fatalf("SortFunc, cutoff %d:\n got %v\nwant %v\n  in %v", cutoff, got, want, in)
		}
	})
}

// FuzzReduce reduces the input's bytes as 2x2 matrices (a product that is
// associative but not commutative) and as strings (concatenation), and
// compares both with a serial left fold: any reordering of the operands
// shows.
func FuzzReduce(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		mats := make([]mat, len(data))
		strs := make([]string, len(data))
		wantMat := identity
		for i, b := range data {
			mats[i], strs[i] = toMat(int(b)), string(rune('a'+b%26))
			wantMat = mul(wantMat, mats[i])
		}
		if got := forkjoin.Reduce(mats, identity, mul); got != wantMat {
			t.Fatalf("matrix product of %v: got %v, want %v", data, got, wantMat)
		}
		wantStr := ""
		for _, s := range strs {
			wantStr += s
		}
		if got := forkjoin.Reduce(strs, "", func(a, b string) string { return a + b }); got != wantStr {
			t.Fatalf("concatenation: got %q, want %q", got, wantStr)
		}
	})
}
