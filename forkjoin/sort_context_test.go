package forkjoin_test

import (
	"cmp"
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/spindle-go/spindle/forkjoin"
)

// sortsWithContext are the three sorts with a context, on int64s with a
// comparison.
var sortsWithContext = []struct {
	name string
	sort func(ctx context.Context, s []int64, cmp func(a, b int64) int) error
}{
	{"SortContext", func(ctx context.Context, s []int64, _ func(a, b int64) int) error {
		return forkjoin.SortContext(ctx, s)
	}},
	{"SortFuncContext", forkjoin.SortFuncContext[[]int64, int64]},
	{"SortStableFuncContext", forkjoin.SortStableFuncContext[[]int64, int64]},
}

// A sort cancelled while it runs stops early and says why: it returns
// the context's cause, leaves every element in s, and makes a small part
// of the comparisons a whole sort makes (the pieces under way finish
// their current stretch, nothing new starts). The cancellation comes from
// inside a comparison, after a tenth of a full sort's; Sort, whose
// comparisons cannot be counted, is cancelled from a comparison-free
// goroutine and checked for its result and its elements only.
func TestSortsWithAContextStopWhenItIsCancelled(t *testing.T) {
	n := 1 << 20
	if raceEnabled {
		n = 1 << 16
	}
	in := make([]int64, n)
	r := rand.New(rand.NewPCG(5, 6))
	for i := range in {
		in[i] = r.Int64()
	}
	cause := errors.New("the client went away")
	for _, sc := range sortsWithContext {
		t.Run(sc.name, func(t *testing.T) {
			var full atomic.Int64
			s := slices.Clone(in)
			require.NoError(t, sc.sort(context.Background(), s, func(a, b int64) int { full.Add(1); return cmp.Compare(a, b) }))
			require.True(t, slices.IsSorted(s))

			s = slices.Clone(in)
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			var calls atomic.Int64
			at := full.Load() / 10
			compare := func(a, b int64) int {
				if calls.Add(1) == at {
					cancel(cause)
				}
				return cmp.Compare(a, b)
			}
			if sc.name == "SortContext" {
				cancel(cause) // before: nothing is touched
				require.ErrorIs(t, sc.sort(ctx, s, nil), cause)
				require.Equal(t, in, s, "a sort with a done context moved elements")
				return
			}
			watchdog(t, func() { assert.ErrorIs(t, sc.sort(ctx, s, compare), cause) })
			t.Logf("%d comparisons cancelled at %d, %d in a whole sort", calls.Load(), at, full.Load())
			assert.Less(t, calls.Load(), full.Load()/2, "comparisons after the cancellation")
			got, want := slices.Clone(s), slices.Clone(in)
			slices.Sort(got)
			slices.Sort(want)
			assert.Equal(t, want, got, "elements lost or doubled")
		})
	}
}

// SortContext, cancelled by another goroutine while it partitions, stops
// and returns the cause with every element kept; a sort that finishes
// before its context is done returns nil.
func TestSortContextCancelledWhileItPartitions(t *testing.T) {
	n := 1 << 22
	if raceEnabled {
		n = 1 << 18
	}
	in := make([]int64, n)
	r := rand.New(rand.NewPCG(7, 8))
	for i := range in {
		in[i] = r.Int64()
	}
	s := slices.Clone(in)
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan struct{})
	go func() { <-started; cancel() }()
	var err error
	watchdog(t, func() {
		close(started)
		err = forkjoin.SortContext(ctx, s)
	})
	if err == nil {
		t.Skip("the sort finished before the cancellation reached it")
	}
	assert.ErrorIs(t, err, context.Canceled)
	slices.Sort(s)
	slices.Sort(in)
	assert.Equal(t, in, s, "elements lost or doubled")
	assert.NoError(t, forkjoin.SortContext(context.Background(), s))
}

// The context is checked, not required: nil panics naming the call.
func TestSortsWithANilContextPanic(t *testing.T) {
	s := []int64{2, 1}
	assert.PanicsWithValue(t, "forkjoin.SortContext: nil context", func() {
		//lint:ignore SA1012 the bad input under test
		forkjoin.SortContext(nil, s)
	})
	assert.PanicsWithValue(t, "forkjoin.SortFuncContext: nil context", func() {
		//lint:ignore SA1012 the bad input under test
		forkjoin.SortFuncContext(nil, s, cmp.Compare[int64])
	})
	assert.PanicsWithValue(t, "forkjoin.SortStableFuncContext: nil function", func() {
		forkjoin.SortStableFuncContext(context.Background(), s, nil)
	})
}
