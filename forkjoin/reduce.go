package forkjoin

import "github.com/spindle-go/spindle/runtime"

// Reduce combines the elements of in with op, in order, possibly in
// parallel on the current pool, and returns the result: op(...op(op(in[0],
// in[1]), in[2])..., in[n-1]) up to the placement of parentheses. op must
// be associative; it need not be commutative, because Reduce only ever
// combines a block of consecutive elements with the block that follows
// it, left operand first. For an empty in it returns identity.
//
// The slice is halved recursively (forkjoin.Call) down to pieces of about
// len(in)/(8*workers) elements, for the workers of the current pool; each
// piece is folded serially from its first element, and the halves'
// results are combined on the way back up. identity is returned for the
// empty input and never combined with anything, which saves an op call
// per piece; for Reduce to agree with a serial fold from identity it
// must be op's identity. An input that is a single piece is folded on the
// calling goroutine, and so are its pieces, in order, when Reduce is
// called from a goroutine that is no worker while the default pool's
// callers fill its Ps, until the call has taken the pool's monitor two
// looks (see Fold). A panic in op is re-raised as a *pool.PanicError
// after every piece that started has finished.
func Reduce[T any](in []T, identity T, op func(a, b T) T) T {
	if op == nil {
		nilFunc("forkjoin.Reduce")
	}
	if len(in) == 0 {
		return identity
	}
	grain := autoGrain(uint(len(in)))
	// One closure per Reduce, passed to every Call of the recursion: the
	// forks themselves allocate nothing.
	var reduce func(s []T) T
	reduce = func(s []T) T {
		if len(s) <= grain {
			return reduceRun(s, op)
		}
		m := len(s) / 2 // grain >= 1, so both halves are non-empty
		a, b := Call(reduce, s[:m], s[m:])
		return op(a, b)
	}
	// The serial form (see enterSerialCall): the pieces in order on the
	// caller, the rest to the pool once the call is overdue.
	serial := func(c runtime.SerialCall, s []T) T {
		left := false
		defer serialLeave(c, &left)
		acc := s[0]
		for i := 1; i < len(s); {
			end := min(i+grain, len(s))
			for _, x := range s[i:end] {
				acc = op(acc, x)
			}
			i = end
			if i < len(s) && c.Overdue() {
				left = true
				c.Leave()
				return op(acc, topCallOffPool(reduce, nil, s[i:]))
			}
		}
		return acc
	}
	return topCall(reduce, serial, in, len(in) > grain)
}

// reduceRun folds s, not empty, serially from its first element: a piece
// of a Reduce.
func reduceRun[T any](s []T, op func(a, b T) T) T {
	acc := s[0]
	for _, x := range s[1:] {
		acc = op(acc, x)
	}
	return acc
}
