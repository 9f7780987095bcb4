package pool_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/spindle-go/spindle/pool"
)

// TestPriorityBadInput: programming errors panic naming the call.
func TestPriorityBadInput(t *testing.T) {
	p := newPool(t, pool.WithWorkers(1))
	for _, tc := range []struct {
		name, want string
		f          func(s *pool.Scope)
	}{
		{"level too high", "pool.Scope.SpawnPriority: priority 4 out of range", func(s *pool.Scope) { s.SpawnPriority(pool.MaxPriority+1, func(*pool.Scope) {}) }},
		{"negative level", "pool.Scope.SpawnPriority: priority -1 out of range", func(s *pool.Scope) { s.SpawnPriority(-1, func(*pool.Scope) {}) }},
		{"nil task", "pool.Scope.SpawnPriority: nil function", func(s *pool.Scope) { s.SpawnPriority(1, nil) }},
		{"bulk level", "pool.Scope.SpawnManyPriority: priority 9 out of range", func(s *pool.Scope) { s.SpawnManyPriority(9, 3, func(*pool.Scope, int) {}) }},
		{"bulk negative n", "pool.Scope.SpawnMany: negative number of tasks -2", func(s *pool.Scope) { s.SpawnMany(-2, func(*pool.Scope, int) {}) }},
		{"bulk nil", "pool.Scope.SpawnMany: nil function", func(s *pool.Scope) { s.SpawnMany(2, nil) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var v any
			p.Scope(func(s *pool.Scope) { v = recoverValue(func() { tc.f(s) }) })
			require.NotNil(t, v)
			assert.Contains(t, fmt.Sprint(v), tc.want)
		})
	}
	var ran bool
	p.Scope(func(s *pool.Scope) { s.SpawnMany(0, func(*pool.Scope, int) { ran = true }) })
	assert.False(t, ran, "SpawnMany(0) spawns nothing")

	_, err := pool.New(pool.WithPriorityPolicy(pool.PriorityPolicy(42)))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "pool.WithPriorityPolicy(42)")
}
