// Package xorshift is Marsaglia's xorshift64 generator (shifts 13, 7, 17),
// the one definition of it: workers draw steal victims from it, and the
// benchmarks' inputs and random choices come from it. It is fast and good
// enough to spread choices; it is not for anything that must be hard to
// predict.
package xorshift

// Next advances the generator whose state is *state and returns the new
// state, the next value. A zero state stays zero: seed with a nonzero
// value.
func Next(state *uint64) uint64 {
	x := *state
	x ^= x << 13
	x ^= x >> 7
	x ^= x << 17
	*state = x
	return x
}
