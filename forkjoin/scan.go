package forkjoin

import "github.com/spindle-go/spindle/pool"

// Scan returns the inclusive prefix combination of s under op: out[i] =
// s[0] op s[1] op ... op s[i], with len(out) == len(s), computed in
// parallel on the current pool. op must be associative; it need not be
// commutative: every call combines what comes earlier in s as its first
// operand. For an empty s it returns an empty, non-nil slice. A panic in
// op is re-raised as a *pool.PanicError after every part that started has
// finished.
//
// A parallel scan does more work than the serial loop (Blelloch 1990):
// every element of the middle below is combined twice. The input is cut
// into a head of n/(2P+1) elements, on P workers, a tail of twice that,
// and a middle cut into chunks:
//
//   - pass 1: the head is scanned (its output is final) while the chunks
//     of the middle are folded to their totals;
//   - a serial scan over the head's last output and the chunks' totals
//     gives every chunk, and the tail, the combination of everything
//     before it (its carry);
//   - pass 2: the chunks of the middle are scanned from their carries
//     while the tail is scanned from its own.
//
// The sizes balance each pass on the measured costs: folding an element
// costs about half of scanning it (which also stores), so in pass 1 the
// head, scanned by one worker, is half of a worker's share of the middle,
// folded by the others; in pass 2 the tail is one worker's share. On two
// workers each makes about 0.6n op calls in sequence, against n for the
// loop.
//
// On a pool of one worker, or for inputs of a few chunks, Scan is the
// serial loop.
func Scan[T any](s []T, op func(a, b T) T) []T {
	if op == nil {
		nilFunc("forkjoin.Scan")
	}
	n := len(s)
	out := make([]T, n)
	if n == 0 {
		return out
	}
	workers := pool.Current().Workers()
	block := n / (2*workers + 1)
	if workers == 1 || block < scanMinBlock {
		topDo(func(struct{}) { scanFrom(out, s, s[0], op) }, nil, struct{}{}, false)
		return out
	}
	sc := &scanner[T]{s: s, out: out, op: op, head: block, tail: n - 2*block}
	sc.grain = autoGrain(uint(sc.tail - sc.head))
	sc.carry = make([]T, (sc.tail-sc.head+sc.grain-1)/sc.grain)
	topDo(sc.run, nil, struct{}{}, true)
	return out
}

// scanMinBlock is the smallest head (n/(2*workers+1)) for which Scan goes
// parallel: below it the passes' forks would cost more than they save.
const scanMinBlock = 1 << 12

// scanner is one parallel Scan: s[:head] is the head, s[tail:] the tail,
// the middle s[head:tail] is cut into chunks of grain elements whose
// totals, then carries, are in carry.
type scanner[T any] struct {
	s, out     []T
	op         func(a, b T) T
	head, tail int
	grain      int
	carry      []T
}

// Parts of a pass, the arguments of Do.
const (
	scanHead = iota
	scanMiddle
	scanTail
)

func (sc *scanner[T]) run(struct{}) {
	s, out, op := sc.s, sc.out, sc.op
	Do(func(part int) {
		if part == scanHead {
			scanFrom(out[:sc.head], s[:sc.head], s[0], op)
			return
		}
		For(sc.head, sc.tail, sc.grain, func(lo, hi int) {
			acc := s[lo]
			for _, x := range s[lo+1 : hi] {
				acc = op(acc, x)
			}
			sc.carry[(lo-sc.head)/sc.grain] = acc
		})
	}, scanHead, scanMiddle)
	// carry[c] becomes everything before chunk c; last, everything before
	// the tail.
	acc := out[sc.head-1]
	for c, total := range sc.carry {
		sc.carry[c], acc = acc, op(acc, total)
	}
	last := acc
	Do(func(part int) {
		if part == scanTail {
			scanFrom(out[sc.tail:], s[sc.tail:], op(last, s[sc.tail]), op)
			return
		}
		For(sc.head, sc.tail, sc.grain, func(lo, hi int) {
			c := sc.carry[(lo-sc.head)/sc.grain]
			scanFrom(out[lo:hi], s[lo:hi], op(c, s[lo]), op)
		})
	}, scanMiddle, scanTail)
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
