package firsterr

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
)

// Result is the first failure, or with Collect every failure joined in
// the order Fail saw them (one failure as it is); the context's cause is
// the first either way.
func TestResultIsTheFirstFailureOrWithCollectEvery(t *testing.T) {
	a, b, c := errors.New("a"), errors.New("b"), errors.New("c")
	for _, tc := range []struct {
		collect bool
		fails   []error
		want    []error // errors.Is(Result, each)
		same    error   // Result itself, when it must be one error
	}{
		{false, []error{a, b, c}, []error{a}, a},
		{true, []error{a}, []error{a}, a},
		{true, []error{a, b, c}, []error{a, b, c}, nil},
		{true, nil, nil, nil},
	} {
		var s Stopper
		s.Collect = tc.collect
		ctx := s.Start(context.Background(), nil)
		for _, err := range tc.fails {
			s.Fail(err)
		}
		got := s.Result(context.Background())
		if len(tc.fails) == 0 {
			assert.NoError(t, got)
			continue
		}
		for _, w := range tc.want {
			assert.ErrorIs(t, got, w, "collect=%v", tc.collect)
		}
		if tc.same != nil {
			assert.Same(t, tc.same, got)
		} else {
			assert.Equal(t, "a\nb\nc", got.Error(), "joined in order")
		}
		if !tc.collect {
			assert.NotErrorIs(t, got, b)
		}
		assert.Same(t, a, context.Cause(ctx), "the cause is the first failure")
	}
}
