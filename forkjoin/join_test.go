package forkjoin_test

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/spindle-go/spindle/forkjoin"
)

// fibJoin is fib with Join, its halves of different result types to show
// that A and B are independent: the right half comes back as a string.
func fibJoin(n int) int {
	if n < 2 {
		return n
	}
	a, b := forkjoin.Join(
		func() int { return fibJoin(n - 1) },
		func() string { return strconv.Itoa(fibJoin(n - 2)) },
	)
	bi, _ := strconv.Atoi(b)
	return a + bi
}

func TestJoinResults(t *testing.T) {
	for _, pl := range places {
		t.Run(pl.name, func(t *testing.T) {
			for _, n := range []int{0, 1, 2, 10, 16} {
				var got int
				runAt(t, pl, func() { got = fibJoin(n) })
				assert.Equal(t, fibSerial(n), got, "fib(%d)", n)
			}
			var a []int
			var b struct{ s string }
			runAt(t, pl, func() {
				a, b = forkjoin.Join(
					func() []int { return []int{1, 2} },
					func() struct{ s string } { return struct{ s string }{"b"} },
				)
			})
			assert.Equal(t, []int{1, 2}, a)
			assert.Equal(t, "b", b.s)
		})
	}
}

func TestJoinPanics(t *testing.T) {
	ok := func() int { return 1 }
	for _, pl := range places {
		for _, tc := range []struct {
			name   string
			fa, fb func() int
			want   any
		}{
			{"fa panics", func() int { panic("a") }, ok, "a"},
			{"fb panics", ok, func() int { panic("b") }, "b"},
			{"both panic, fa wins", func() int { panic("a") }, func() int { panic("b") }, "a"},
			{"error value", ok, func() int { panic(errBoom) }, errBoom},
		} {
			t.Run(pl.name+"/"+tc.name, func(t *testing.T) {
				runAt(t, pl, func() {
					pe := catchPanicError(t, func() { forkjoin.Join(tc.fa, tc.fb) })
					assert.Equal(t, tc.want, pe.Value)
					a, b := forkjoin.Join(ok, ok) // the frame is reusable
					assert.Equal(t, [2]int{1, 1}, [2]int{a, b})
				})
			})
		}
	}
}
