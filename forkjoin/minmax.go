package forkjoin

// MinFunc returns the minimal element of s by cmp, the first of several
// minimal ones, as slices.MinFunc does, comparing pieces of s in parallel
// on the current pool (Reduce). It panics if s is empty. A panic in cmp is
// re-raised as a *pool.PanicError.
func MinFunc[S ~[]E, E any](s S, cmp func(a, b E) int) E {
	if cmp == nil {
		nilFunc("forkjoin.MinFunc")
	}
	if len(s) == 0 {
		panic("forkjoin.MinFunc: empty list")
	}
	// Reduce combines an earlier block with a later one, earlier first:
	// keeping a unless b is strictly smaller keeps the first of equals.
	return Reduce([]E(s), s[0], func(a, b E) E {
		if cmp(b, a) < 0 {
			return b
		}
		return a
	})
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
	return Reduce([]E(s), s[0], func(a, b E) E {
		if cmp(b, a) > 0 {
			return b
		}
		return a
	})
}
