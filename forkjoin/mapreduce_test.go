package forkjoin_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/spindle-go/spindle/forkjoin"
)

var lengths = []int{0, 1, 2, 3, 7, 1000, 100003}

// ints returns 0, 1, ..., n-1 scrambled deterministically.
func ints(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = (i*7919 + 13) % (n + 1)
	}
	return s
}

func TestMapMatchesSerial(t *testing.T) {
	f := func(x int) string { return strconv.Itoa(x*x + 1) }
	for _, pl := range places {
		for _, n := range lengths {
			t.Run(fmt.Sprintf("%s/len %d", pl.name, n), func(t *testing.T) {
				in := ints(n)
				var got []string
				runAt(t, pl, func() { got = forkjoin.Map(in, f) })
				require.NotNil(t, got)
				require.Len(t, got, n)
				for i, x := range in {
					require.Equal(t, f(x), got[i], "index %d", i)
				}
			})
		}
	}
}

func TestMapNilInput(t *testing.T) {
	got := forkjoin.Map(nil, func(x int) int { t.Error("f called"); return x })
	assert.NotNil(t, got)
	assert.Empty(t, got)
}

func TestMapPanics(t *testing.T) {
	for _, pl := range places {
		for _, n := range []int{1, 1000} {
			t.Run(fmt.Sprintf("%s/len %d", pl.name, n), func(t *testing.T) {
				runAt(t, pl, func() {
					in := ints(n)
					pe := catchPanicError(t, func() {
						forkjoin.Map(in, func(x int) int {
							if x == in[n/2] {
								panic(errBoom)
							}
							return x
						})
					})
					assert.ErrorIs(t, pe, errBoom)
				})
			})
		}
	}
}

// mat is a 2x2 matrix over the integers modulo 2^32: its product is
// associative (wrapping arithmetic is a ring) and not commutative, so a
// reduction that reorders operands gives a different result.
type mat [4]uint32

func mul(a, b mat) mat {
	return mat{
		a[0]*b[0] + a[1]*b[2], a[0]*b[1] + a[1]*b[3],
		a[2]*b[0] + a[3]*b[2], a[2]*b[1] + a[3]*b[3],
	}
}

var identity = mat{1, 0, 0, 1}

func toMat(x int) mat { return mat{uint32(x), 1, 1, 0} }

func TestReduceMatchesSerial(t *testing.T) {
	for _, pl := range places {
		for _, n := range lengths {
			t.Run(fmt.Sprintf("%s/len %d", pl.name, n), func(t *testing.T) {
				in := ints(n)
				mats := make([]mat, n)
				strs := make([]string, n)
				wantSum, wantMat := 0, identity
				var wantStr strings.Builder
				for i, x := range in {
					mats[i], strs[i] = toMat(x), strconv.Itoa(x)+","
					wantSum += x
					wantMat = mul(wantMat, mats[i])
					wantStr.WriteString(strs[i])
				}
				var gotSum int
				var gotMat mat
				var gotStr string
				runAt(t, pl, func() {
					gotSum = forkjoin.Reduce(in, 0, func(a, b int) int { return a + b })
					gotMat = forkjoin.Reduce(mats, identity, mul)
					if n <= 1000 { // concatenation is quadratic in the length
						gotStr = forkjoin.Reduce(strs, "", func(a, b string) string { return a + b })
					}
				})
				assert.Equal(t, wantSum, gotSum, "sum")
				assert.Equal(t, wantMat, gotMat, "matrix product")
				if n <= 1000 {
					assert.Equal(t, wantStr.String(), gotStr, "concatenation")
				}
			})
		}
	}
}

// TestReduceDoesNotCombineIdentity pins a documented choice: identity is
// the result for an empty input only; non-empty inputs are folded from
// their elements, here with a "identity" that is not one.
func TestReduceDoesNotCombineIdentity(t *testing.T) {
	plus := func(a, b int) int { return a + b }
	assert.Equal(t, 100, forkjoin.Reduce(nil, 100, plus))
	assert.Equal(t, 100, forkjoin.Reduce([]int{}, 100, plus))
	assert.Equal(t, 6, forkjoin.Reduce([]int{1, 2, 3}, 100, plus))
	in := ints(100000)
	want := 0
	for _, x := range in {
		want += x
	}
	assert.Equal(t, want, forkjoin.Reduce(in, 100, plus))
}

func TestReducePanics(t *testing.T) {
	for _, pl := range places {
		for _, n := range []int{2, 1000} {
			t.Run(fmt.Sprintf("%s/len %d", pl.name, n), func(t *testing.T) {
				runAt(t, pl, func() {
					in := ints(n)
					pe := catchPanicError(t, func() {
						forkjoin.Reduce(in, 0, func(a, b int) int {
							if b == in[n-1] {
								panic(errBoom)
							}
							return a + b
						})
					})
					assert.ErrorIs(t, pe, errBoom)
				})
			})
		}
	}
}
