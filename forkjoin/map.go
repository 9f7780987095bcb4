package forkjoin

// Map returns out with out[i] = f(in[i]) for every i, len(out) == len(in),
// computing the elements possibly in parallel on the current pool (For
// with its automatic grain). For a nil or empty in it returns an empty,
// non-nil slice without calling f. Each element is written by exactly one
// call of f, so f needs no synchronisation for out's sake; the order in
// which the calls happen is unspecified. A panic in f is re-raised as a
// *pool.PanicError after every chunk that started has finished.
func Map[T, U any](in []T, f func(T) U) []U {
	if f == nil {
		nilFunc("forkjoin.Map")
	}
	out := make([]U, len(in))
	if len(in) == 0 {
		return out
	}
	For(0, len(in), 0, func(lo, hi int) {
		dst := out[lo:hi]
		for i, x := range in[lo:hi] {
			dst[i] = f(x)
		}
	})
	return out
}
