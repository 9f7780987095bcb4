package forkjoin_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/spindle-go/spindle/forkjoin"
)

func ExampleForErr() {
	// Check a million readings in chunks of 10,000. The first bad one
	// stops the check: chunks that have not started never start, and the
	// bodies' context is cancelled for those still running.
	readings := make([]float64, 1_000_000)
	for i := range readings {
		readings[i] = float64(i % 100)
	}
	readings[654_321] = -7
	check := func(ctx context.Context, lo, hi int) error {
		for i := lo; i < hi; i++ {
			if readings[i] < 0 {
				return fmt.Errorf("reading %d: negative value %v", i, readings[i])
			}
		}
		return nil
	}
	fmt.Println(forkjoin.ForErr(context.Background(), 0, len(readings), 10_000, check))

	readings[654_321] = 7
	fmt.Println(forkjoin.ForErr(context.Background(), 0, len(readings), 10_000, check))
	// Output:
	// reading 654321: negative value -7
	// <nil>
}

func ExampleMapErr() {
	parse := func(_ context.Context, s string) (int, error) { return strconv.Atoi(s) }
	nums, err := forkjoin.MapErr(context.Background(), []string{"4", "8", "15", "16", "23", "42"}, parse)
	fmt.Println(nums, err)

	// With an error there is no result, only the first error.
	nums, err = forkjoin.MapErr(context.Background(), []string{"4", "8", "fifteen", "16"}, parse)
	fmt.Println(nums == nil, err)
	fmt.Println(errors.Is(err, strconv.ErrSyntax))
	// Output:
	// [4 8 15 16 23 42] <nil>
	// true strconv.Atoi: parsing "fifteen": invalid syntax
	// true
}

func ExampleFoldErr() {
	// A histogram of a million readings, by tens. A negative reading
	// stops the count: no piece starts after the one that found it, and
	// there is no histogram, only the error.
	readings := make([]int, 1_000_000)
	for i := range readings {
		readings[i] = i % 100
	}
	histogram := func() ([10]int, error) {
		return forkjoin.FoldErr(context.Background(), 0, len(readings), 0,
			func() [10]int { return [10]int{} },
			func(_ context.Context, h [10]int, lo, hi int) ([10]int, error) {
				for i := lo; i < hi; i++ {
					if readings[i] < 0 {
						return h, fmt.Errorf("reading %d: negative value %d", i, readings[i])
					}
					h[readings[i]/10]++
				}
				return h, nil
			},
			func(a, b [10]int) [10]int {
				for i := range a {
					a[i] += b[i]
				}
				return a
			})
	}
	fmt.Println(histogram())

	readings[654_321] = -7
	fmt.Println(histogram())
	// Output:
	// [100000 100000 100000 100000 100000 100000 100000 100000 100000 100000] <nil>
	// [0 0 0 0 0 0 0 0 0 0] reading 654321: negative value -7
}

func ExampleReduceContext() {
	in := make([]int, 1_000_000)
	for i := range in {
		in[i] = i
	}
	sum := func(a, b int) int { return a + b }
	fmt.Println(forkjoin.ReduceContext(context.Background(), in, 0, sum))

	// The client of the request went away: no piece starts, and the
	// cause comes back instead of a sum.
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(errors.New("client went away"))
	fmt.Println(forkjoin.ReduceContext(ctx, in, 0, sum))
	// Output:
	// 499999500000 <nil>
	// 0 client went away
}
