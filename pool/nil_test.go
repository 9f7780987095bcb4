package pool_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/spindle-go/spindle/pool"
)

// Every method on a nil *Pool, *Group, *Scope or *Future, and Submit given
// a nil *Pool, panics with a message naming the call and the type instead
// of dereferencing nil somewhere inside.
func TestCallsOnNilPointersNameTheCallAndTheType(t *testing.T) {
	var (
		p *pool.Pool
		g *pool.Group
		s *pool.Scope
		f *pool.Future[int]
	)
	noop := func() {}
	cases := []struct {
		want string
		call func()
	}{
		{"pool.Pool.Workers: nil *pool.Pool", func() { p.Workers() }},
		{"pool.Pool.MaxWorkers: nil *pool.Pool", func() { p.MaxWorkers() }},
		{"pool.Pool.Run: nil *pool.Pool", func() { p.Run(noop) }},
		{"pool.Pool.RunContext: nil *pool.Pool", func() { _ = p.RunContext(context.Background(), noop) }},
		{"pool.Pool.Join: nil *pool.Pool", func() { p.Join(noop, noop) }},
		{"pool.Pool.Scope: nil *pool.Pool", func() { p.Scope(func(*pool.Scope) {}) }},
		{"pool.Pool.ScopeContext: nil *pool.Pool", func() { _ = p.ScopeContext(context.Background(), func(*pool.Scope) {}) }},
		{"pool.Pool.Spawn: nil *pool.Pool", func() { p.Spawn(noop) }},
		{"pool.Pool.Close: nil *pool.Pool", func() { _ = p.Close() }},
		{"pool.Pool.Stats: nil *pool.Pool", func() { p.Stats() }},
		{"pool.Pool.NewGroup: nil *pool.Pool", func() { p.NewGroup(context.Background()) }},
		{"pool.Submit: nil *pool.Pool", func() { pool.Submit(p, func() int { return 0 }) }},
		{"pool.SubmitContext: nil *pool.Pool", func() { pool.SubmitContext(context.Background(), p, func() int { return 0 }) }},
		{"pool.Group.Go: nil *pool.Group", func() { g.Go(func() error { return nil }) }},
		{"pool.Group.TryGo: nil *pool.Group", func() { g.TryGo(func() error { return nil }) }},
		{"pool.Group.SetLimit: nil *pool.Group", func() { g.SetLimit(1) }},
		{"pool.Group.Wait: nil *pool.Group", func() { _ = g.Wait() }},
		{"pool.Scope.Spawn: nil *pool.Scope", func() { s.Spawn(func(*pool.Scope) {}) }},
		{"pool.Scope.SpawnPriority: nil *pool.Scope", func() { s.SpawnPriority(1, func(*pool.Scope) {}) }},
		{"pool.Scope.SpawnMany: nil *pool.Scope", func() { s.SpawnMany(1, func(*pool.Scope, int) {}) }},
		{"pool.Scope.SpawnManyPriority: nil *pool.Scope", func() { s.SpawnManyPriority(1, 1, func(*pool.Scope, int) {}) }},
		{"pool.Scope.Context: nil *pool.Scope", func() { s.Context() }},
		{"pool.Future.Wait: nil *pool.Future", func() { f.Wait() }},
		{"pool.Future.Done: nil *pool.Future", func() { f.Done() }},
		{"pool.Future.TryGet: nil *pool.Future", func() { f.TryGet() }},
		{"pool.Future.Err: nil *pool.Future", func() { _ = f.Err() }},
	}
	for _, c := range cases {
		t.Run(c.want, func(t *testing.T) {
			assert.PanicsWithValue(t, c.want, c.call)
		})
	}
}

// A zero Pool (var p pool.Pool), which New did not make, panics in every
// call with a message that names the call and says to use New.
func TestCallsOnAZeroPoolSayToUseNew(t *testing.T) {
	var p pool.Pool
	noop := func() {}
	const use = ": zero pool.Pool: make a pool with pool.New, or use pool.Default()"
	for _, c := range []struct {
		call string
		f    func()
	}{
		{"pool.Pool.Workers", func() { p.Workers() }},
		{"pool.Pool.MaxWorkers", func() { p.MaxWorkers() }},
		{"pool.Pool.Run", func() { p.Run(noop) }},
		{"pool.Pool.RunContext", func() { _ = p.RunContext(context.Background(), noop) }},
		{"pool.Pool.Join", func() { p.Join(noop, noop) }},
		{"pool.Pool.Scope", func() { p.Scope(func(*pool.Scope) {}) }},
		{"pool.Pool.ScopeContext", func() { _ = p.ScopeContext(context.Background(), func(*pool.Scope) {}) }},
		{"pool.Pool.Spawn", func() { p.Spawn(noop) }},
		{"pool.Pool.Close", func() { _ = p.Close() }},
		{"pool.Pool.Stats", func() { p.Stats() }},
		{"pool.Pool.NewGroup", func() { p.NewGroup(context.Background()) }},
		{"pool.Submit", func() { pool.Submit(&p, func() int { return 0 }) }},
		{"pool.SubmitContext", func() { pool.SubmitContext(context.Background(), &p, func() int { return 0 }) }},
		{"pool.NewPerWorker", func() { pool.NewPerWorker[int](&p) }},
		{"pool.SetDefault", func() { pool.SetDefault(&p) }},
	} {
		t.Run(c.call, func(t *testing.T) {
			assert.PanicsWithValue(t, c.call+use, c.f)
		})
	}
}
