package forkjoin

import (
	"cmp"
	"context"
	"errors"
	"sync/atomic"

	"github.com/spindle-go/spindle/pool"
	"github.com/spindle-go/spindle/runtime"
)

// sortCancel is the cancellation of one sort with a context: the pieces
// look at the context's done channel (done), or, in a testing/synctest
// bubble, at stop, which context.AfterFunc sets; skipped is set once a
// piece saw the end and stopped short. A nil *sortCancel never stops: the
// sorts without a context carry nil, and pay one nil test per piece.
//
// The channel is the rule: a non-blocking receive is a load of a line
// nobody writes while the context runs, and it sees the end at once. The
// AfterFunc's function runs on a goroutine of its own, which waits for a
// P while the workers hold every one: the sort ran on meanwhile (at
// GOMAXPROCS 128 on 2 CPUs, past half its comparisons after the
// cancellation). But a channel made in a bubble may not be received from
// outside it, as the workers of a pool made outside would.
type sortCancel struct {
	done          <-chan struct{}
	stop, skipped atomic.Bool
}

// stopped reports whether the sort must stop now, and records that it
// stopped short if so.
func (c *sortCancel) stopped() bool {
	if c == nil {
		return false
	}
	if c.done != nil {
		select {
		case <-c.done:
		default:
			return false
		}
	} else if !c.stop.Load() {
		return false
	}
	if !c.skipped.Load() { // stored once: the pieces that stop after only read it
		c.skipped.Store(true)
	}
	return true
}

// cancelCheckBlocks is how many blocks a partition classifies (or pairs
// it swaps) between two looks at its sort's cancellation: about 8Ki
// elements, some 10 µs, so that a partition of millions of elements
// notices a cancellation long before it ends, at the cost of a nil test
// per 64 blocks.
const cancelCheckBlocks = 64

// errSortCancelled is the panic that unwinds SortStableFuncContext's
// pieces once it is cancelled: a piece leaves its elements in its range
// of s when a panic goes through it (restore), so a cancelled stable sort
// leaves every element in s, as a panicking comparison does.
var errSortCancelled = errors.New("forkjoin: sort cancelled")

// withSortCancel runs sort with the cancellation of ctx and returns
// context.Cause(ctx) if a piece stopped short, nil if the sort finished
// (a context done after the last piece is no error: s is sorted).
func withSortCancel(ctx context.Context, call string, sort func(c *sortCancel)) error {
	if ctx == nil {
		panic(call + ": nil context")
	}
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	c := new(sortCancel)
	if runtime.InSynctestBubble() {
		// The function only sets a flag: it may run on any goroutine,
		// inside the bubble or out of it.
		defer context.AfterFunc(ctx, func() { c.stop.Store(true) })()
	} else {
		c.done = ctx.Done()
	}
	sort(c)
	if c.skipped.Load() {
		return context.Cause(ctx)
	}
	return nil
}

// SortContext is Sort that stops once ctx is done: pieces not yet
// started are not started, and partitions under way stop within a few
// thousand elements. It then returns context.Cause(ctx), and s is a
// permutation of its input, partly sorted. If the sort finishes first it
// returns nil, whatever ctx does afterwards. A ctx already done returns
// its cause at once and leaves s alone; a nil ctx panics.
func SortContext[S ~[]E, E cmp.Ordered](ctx context.Context, s S) error {
	return withSortCancel(ctx, "forkjoin.SortContext", func(c *sortCancel) {
		sortOrderedCancel([]E(s), sortCutoff, c)
	})
}

// SortFuncContext is SortFunc that stops once ctx is done, as
// SortContext does. A panic in cmp is re-raised as SortFunc re-raises it.
func SortFuncContext[S ~[]E, E any](ctx context.Context, s S, cmp func(a, b E) int) error {
	if cmp == nil {
		nilFunc("forkjoin.SortFuncContext")
	}
	return withSortCancel(ctx, "forkjoin.SortFuncContext", func(c *sortCancel) {
		sortFuncCancel([]E(s), cmp, sortFuncCutoff, c)
	})
}

// SortStableFuncContext is SortStableFunc that stops once ctx is done,
// as SortContext does: then s holds every one of its elements, in no
// particular order, and it returns context.Cause(ctx). A panic in cmp is
// re-raised as SortStableFunc re-raises it.
func SortStableFuncContext[S ~[]E, E any](ctx context.Context, s S, cmp func(a, b E) int) (err error) {
	if cmp == nil {
		nilFunc("forkjoin.SortStableFuncContext")
	}
	return withSortCancel(ctx, "forkjoin.SortStableFuncContext", func(c *sortCancel) {
		defer func() {
			if v := recover(); v != nil {
				if pe, ok := v.(*pool.PanicError); ok && pe.Value == errSortCancelled {
					return // c.skipped is set: the caller returns the cause
				}
				panic(v)
			}
		}()
		sortStable([]E(s), cmp, c)
	})
}
