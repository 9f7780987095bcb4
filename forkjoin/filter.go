package forkjoin

import "math/bits"

// Filter returns a new slice holding the elements of s that satisfy keep,
// in their order in s, computed in parallel on the current pool. keep is
// called exactly once per element; the result is allocated once, at its
// exact length, and nothing is allocated per element. A panic in keep is
// re-raised as a *pool.PanicError after every chunk that started has
// finished. For an empty result it returns an empty, non-nil slice.
//
// Two passes over chunks of s (For's automatic grain, rounded up to a
// multiple of 64): the first calls keep on every element, records the
// answers as bits (one bit per element, each chunk on words of its own)
// and counts each chunk's kept elements; a prefix sum over the chunks'
// counts gives each chunk its place in the result, and the second pass
// copies the kept elements there, reading the bits.
func Filter[T any](s []T, keep func(T) bool) []T {
	if keep == nil {
		nilFunc("forkjoin.Filter")
	}
	n := len(s)
	if n == 0 {
		return []T{}
	}
	grain := (autoGrain(uint(n)) + 63) &^ 63
	chunks := (n + grain - 1) / grain
	kept := make([]uint64, (n+63)/64)
	counts := make([]int, chunks)
	For(0, n, grain, func(lo, hi int) {
		count := 0
		words := kept[lo/64 : (hi+63)/64]
		for w := range words {
			base := lo + 64*w
			var word uint64
			for b, x := range s[base:min(base+64, hi)] {
				if keep(x) {
					word |= 1 << b
				}
			}
			words[w] = word
			count += bits.OnesCount64(word)
		}
		counts[lo/grain] = count
	})
	total := 0
	for c, k := range counts {
		counts[c] = total // from here on: where chunk c's elements go
		total += k
	}
	out := make([]T, total)
	if total == 0 {
		return out
	}
	For(0, n, grain, func(lo, hi int) {
		dst := out[counts[lo/grain]:]
		k := 0
		for w, word := range kept[lo/64 : (hi+63)/64] {
			base := lo + 64*w
			if word == ^uint64(0) {
				k += copy(dst[k:], s[base:base+64])
				continue
			}
			for word != 0 {
				dst[k] = s[base+bits.TrailingZeros64(word)]
				k++
				word &= word - 1
			}
		}
	})
	return out
}
