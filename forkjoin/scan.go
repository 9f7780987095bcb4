package forkjoin

import "github.com/spindle-go/spindle/pool"

// Scan returns the inclusive prefix combination of s under op: out[i] =
// s[0] op s[1] op ... op s[i], with len(out) == len(s), computed in
// parallel on the current pool. op must be associative; it need not be
// commutative: every call combines what comes earlier in s as its first
// operand. For an empty s it returns an empty, non-nil slice. A panic in
// op is re-raised as a *pool.PanicError after every chunk that started has
// finished.
//
// The parallel scan is the classic two passes over chunks (Blelloch
// 1990, reduce then scan): the first folds each chunk but the last to
// its total; a serial scan over those totals gives each chunk the
// combination of everything before it (its carry); the second pass scans
// each chunk from its carry, writing out. op runs about twice per
// element, so on a pool of one worker, or for an input that is a single
// chunk, Scan is the serial loop instead.
func Scan[T any](s []T, op func(a, b T) T) []T {
	if op == nil {
		nilFunc("forkjoin.Scan")
	}
	out := make([]T, len(s))
	if len(s) == 0 {
		return out
	}
	n := len(s)
	grain := autoGrain(uint(n))
	if pool.Current().Workers() == 1 || n <= grain {
		topDo(func(struct{}) { scanFrom(out, s, s[0], op) }, struct{}{}, false)
		return out
	}
	chunks := (n + grain - 1) / grain
	carry := make([]T, chunks)
	For(0, (chunks-1)*grain, grain, func(lo, hi int) { // every chunk but the last
		acc := s[lo]
		for _, x := range s[lo+1 : hi] {
			acc = op(acc, x)
		}
		carry[lo/grain] = acc
	})
	for c := 1; c < chunks-1; c++ {
		carry[c] = op(carry[c-1], carry[c]) // now: s[0] op ... op s[end of chunk c]
	}
	For(0, n, grain, func(lo, hi int) {
		if lo == 0 {
			scanFrom(out[:hi], s[:hi], s[0], op)
			return
		}
		acc := op(carry[lo/grain-1], s[lo])
		scanFrom(out[lo:hi], s[lo:hi], acc, op)
	})
	return out
}

// scanFrom writes out[0] = first (s[0], folded into what comes before it
// by the caller) and out[i] = out[i-1] op s[i] for i >= 1.
func scanFrom[T any](out, s []T, first T, op func(a, b T) T) {
	acc := first
	out[0] = acc
	for i := 1; i < len(s); i++ {
		acc = op(acc, s[i])
		out[i] = acc
	}
}
