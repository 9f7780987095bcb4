package testutil

import "github.com/spindle-go/spindle/internal/xorshift"

// Burn does about n units of work that the compiler cannot remove while
// the caller keeps the result (tests add it to an atomic sink).
func Burn(n int) int {
	x := uint64(n) | 1
	for range n {
		xorshift.Next(&x)
	}
	return int(x & 1)
}
