package forkjoin

import (
	"cmp"
	"slices"
)

// MinFunc returns the minimal element of s by cmp, the first of several
// minimal ones, as slices.MinFunc does, scanning chunks of s in parallel
// on the current pool (For's automatic grain; one call of cmp per element,
// and one more per chunk to combine). It panics if s is empty. A panic in
// cmp is re-raised as a *pool.PanicError.
func MinFunc[S ~[]E, E any](s S, cmp func(a, b E) int) E {
	if cmp == nil {
		nilFunc("forkjoin.MinFunc")
	}
	if len(s) == 0 {
		panic("forkjoin.MinFunc: empty list")
	}
	return s[extremeIndex([]E(s), cmp, false)]
}

// MaxFunc returns the maximal element of s by cmp, the first of several
// maximal ones, as slices.MaxFunc does. It panics if s is empty.
func MaxFunc[S ~[]E, E any](s S, cmp func(a, b E) int) E {
	if cmp == nil {
		nilFunc("forkjoin.MaxFunc")
	}
	if len(s) == 0 {
		panic("forkjoin.MaxFunc: empty list")
	}
	return s[extremeIndex([]E(s), cmp, true)]
}

// extremeIndex returns the index of the first element of s that no other
// beats, where b beats a if cmp(b, a) < 0, or > 0 for the maximum. Each chunk finds its own; the chunks' winners are then
// compared in order, so a later chunk wins only if strictly better: the
// first of equals is kept everywhere.
func extremeIndex[E any](s []E, cmp func(a, b E) int, maximum bool) int {
	grain := autoGrain(uint(len(s)))
	best := make([]int, (len(s)+grain-1)/grain)
	For(0, len(s), grain, func(lo, hi int) {
		b := lo
		for i := lo + 1; i < hi; i++ {
			if c := cmp(s[i], s[b]); c < 0 && !maximum || c > 0 && maximum {
				b = i
			}
		}
		best[lo/grain] = b
	})
	defer rethrow() // cmp's panics come out as *PanicError here too
	b := best[0]
	for _, i := range best[1:] {
		if c := cmp(s[i], s[b]); c < 0 && !maximum || c > 0 && maximum {
			b = i
		}
	}
	return b
}

// Min returns the minimal value in s, as slices.Min does: it panics if s
// is empty, and for floating-point numbers a NaN anywhere in s makes the
// result NaN.
func Min[S ~[]E, E cmp.Ordered](s S) E {
	if len(s) <= scanSerial {
		return slices.Min(s)
	}
	return extremeOrdered([]E(s), false)
}

// Max returns the maximal value in s, as slices.Max does: it panics if s
// is empty, and for floating-point numbers a NaN anywhere in s makes the
// result NaN.
func Max[S ~[]E, E cmp.Ordered](s S) E {
	if len(s) <= scanSerial {
		return slices.Max(s)
	}
	return extremeOrdered([]E(s), true)
}

// extremeOrdered returns the least (or with maximum the greatest) value
// of s, len(s) > 0, by chunks whose results combine in any order: the
// built-in min and max propagate NaNs and put -0 before +0 whatever the
// order of their arguments, as slices.Min and Max do. Each chunk's loop
// calls the built-in directly (a function value per element would cost
// more than the scan).
func extremeOrdered[E cmp.Ordered](s []E, maximum bool) E {
	pick := func(a, b E) E { return min(a, b) }
	if maximum {
		pick = func(a, b E) E { return max(a, b) }
	}
	return Fold(0, len(s), 0,
		func() E { return s[0] },
		func(acc E, lo, hi int) E {
			if maximum {
				return max(acc, slices.Max(s[lo:hi]))
			}
			return min(acc, slices.Min(s[lo:hi]))
		},
		pick)
}
