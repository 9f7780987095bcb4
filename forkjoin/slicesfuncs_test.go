package forkjoin_test

import (
	"cmp"
	"math"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/spindle-go/spindle/forkjoin"
)

// floatsOf decodes data into float64 values with the cases slices' scans
// treat specially: byte 255 is a NaN, 254 is -0, 253 is +0, 252 +Inf and
// 251 -Inf; any other byte b is float64(b%16), so values repeat.
func floatsOf(data []byte) []float64 {
	s := make([]float64, len(data))
	for i, b := range data {
		switch b {
		case 255:
			s[i] = math.NaN()
		case 254:
			s[i] = math.Copysign(0, -1)
		case 253:
			s[i] = 0
		case 252:
			s[i] = math.Inf(1)
		case 251:
			s[i] = math.Inf(-1)
		default:
			s[i] = float64(b % 16)
		}
	}
	return s
}

// sameFloat reports whether a and b are the same value: both NaN, or
// equal with the same sign (so -0 and +0 differ).
func sameFloat(a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return a == b && math.Signbit(a) == math.Signbit(b)
}

// checkScans compares each scan of forkjoin with its slices function on
// s: Min, Max, Index and Contains of s's first value, of its middle one
// and of a value it may lack, Equal with a copy and with the copy changed
// at one place, IsSorted and IsSortedFunc of s and of s sorted.
func checkScans(t *testing.T, s []float64, at int) {
	t.Helper()
	if len(s) > 0 {
		assert.True(t, sameFloat(slices.Min(s), forkjoin.Min(s)), "Min(%v)", s)
		assert.True(t, sameFloat(slices.Max(s), forkjoin.Max(s)), "Max(%v)", s)
	} else {
		assert.PanicsWithValue(t, "slices.Min: empty list", func() { forkjoin.Min(s) })
		assert.PanicsWithValue(t, "slices.Max: empty list", func() { forkjoin.Max(s) })
	}
	probes := []float64{7.5, math.NaN()}
	if len(s) > 0 {
		probes = append(probes, s[0], s[len(s)/2], s[len(s)-1])
	}
	for _, v := range probes {
		assert.Equal(t, slices.Index(s, v), forkjoin.Index(s, v), "Index(%v)", v)
		assert.Equal(t, slices.Contains(s, v), forkjoin.Contains(s, v), "Contains(%v)", v)
	}
	c := slices.Clone(s)
	assert.Equal(t, slices.Equal(s, c), forkjoin.Equal(s, c), "Equal to a copy")
	assert.Equal(t, slices.Equal(s, c[:max(len(c)-1, 0)]), forkjoin.Equal(s, c[:max(len(c)-1, 0)]), "Equal to a shorter copy")
	if len(c) > 0 {
		c[at%len(c)] = 99
		assert.Equal(t, slices.Equal(s, c), forkjoin.Equal(s, c), "Equal with a change at %d", at%len(c))
	}
	sorted := slices.Clone(s)
	slices.Sort(sorted)
	for _, in := range [][]float64{s, sorted} {
		assert.Equal(t, slices.IsSorted(in), forkjoin.IsSorted(in), "IsSorted(%v)", in)
		assert.Equal(t, slices.IsSortedFunc(in, cmp.Compare[float64]),
			forkjoin.IsSortedFunc(in, cmp.Compare[float64]), "IsSortedFunc(%v)", in)
	}
}

// FuzzScans compares Min, Max, Index, Contains, Equal, IsSorted and
// IsSortedFunc with their slices functions on floats decoded from the
// input (floatsOf), serially and through the parallel chunks (every
// length past 0 elements goes to the pool).
func FuzzScans(f *testing.F) {
	f.Add([]byte{1, 2, 3}, 0)
	f.Add([]byte{3, 255, 1, 254, 253, 2}, 4)
	f.Add([]byte{253, 254, 253, 254}, 1)
	f.Fuzz(func(t *testing.T, data []byte, at int) {
		if at < 0 {
			at = -at
		}
		s := floatsOf(data)
		checkScans(t, s, at)
		defer forkjoin.SetScanSerial(0)()
		checkScans(t, s, at)
	})
}

// TestScansOfLargeSlicesMatchSlices runs the scans above the serial
// length on the shapes that decide them: a NaN or a -0 at the start, the
// middle or the end, a sorted slice broken at one chunk's boundary, and
// equal slices that differ in their last element.
func TestScansOfLargeSlicesMatchSlices(t *testing.T) {
	const n = 1 << 17
	base := func() []float64 {
		s := make([]float64, n)
		for i := range s {
			s[i] = float64(i % 1000)
		}
		return s
	}
	sorted := func() []float64 {
		s := make([]float64, n)
		for i := range s {
			s[i] = float64(i)
		}
		return s
	}
	for _, tc := range []struct {
		name string
		make func() []float64
		at   int
	}{
		{"repeating", base, 0},
		{"NaN first", func() []float64 { s := base(); s[0] = math.NaN(); return s }, 5},
		{"NaN last", func() []float64 { s := base(); s[n-1] = math.NaN(); return s }, n - 1},
		{"-0 middle", func() []float64 { s := base(); s[n/2] = math.Copysign(0, -1); return s }, n / 2},
		{"sorted", sorted, n - 1},
		{"sorted, broken at a chunk's start", func() []float64 { s := sorted(); s[1<<14] = -1; return s }, 1 << 14},
		{"sorted, broken at the end", func() []float64 { s := sorted(); s[n-1] = 0; return s }, 3},
	} {
		t.Run(tc.name, func(t *testing.T) { checkScans(t, tc.make(), tc.at) })
	}
}

// A panic in IsSortedFunc's cmp comes out as a *pool.PanicError, serially
// and through the chunks.
func TestIsSortedFuncPanicsAsPanicError(t *testing.T) {
	s := make([]int, 1<<17)
	for _, serial := range []bool{true, false} {
		in := s
		if serial {
			in = s[:10]
		}
		pe := catchPanicError(t, func() {
			forkjoin.IsSortedFunc(in, func(a, b int) int { panic("boom") })
		})
		assert.Equal(t, "boom", pe.Value, "serial=%v", serial)
	}
	assert.PanicsWithValue(t, "forkjoin.IsSortedFunc: nil function", func() { forkjoin.IsSortedFunc(s, nil) })
}
