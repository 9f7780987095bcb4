package runtime

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/spindle-go/spindle/internal/testutil"
)

// newRegistry starts a registry that the test closes when it ends, with as
// many Ps as workers: the engine's tests assume that all the workers run
// at once (size.go parks those past GOMAXPROCS).
func newRegistry(t *testing.T, cfg Config) *Registry {
	t.Helper()
	testutil.NeedProcs(t, cfg.Workers)
	r, err := NewRegistry(cfg)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, r.Close()) })
	return r
}

// watchdog runs body under testutil's watchdog.
func watchdog(t *testing.T, body func()) { testutil.Watchdog(t, testutil.Limit, body) }

// join is the engine's two-way fork from a worker (JoinCurrent), the fork
// of pool.Join.
func join(a, b func()) { JoinCurrent("test join", a, b, nil) }

// currentScope runs body in a scope on the registry of the calling worker.
func currentScope(body func(*Scope)) { CurrentWorker().Registry().Scope("test scope", body) }

// submit runs f as a task submitted to r (Registry.Submit, the engine
// under pool.Submit) and waits for its result.
func submit[T any](r *Registry, f func() T) T {
	var v T
	task := &testTask{fn: func() { v = f() }}
	r.Submit("test submit", &task.f, task)
	task.f.Wait()
	return v
}

// recoverValue runs f and returns what it panicked with, or nil.
func recoverValue(f func()) (v any) {
	defer func() { v = recover() }()
	f()
	return nil
}

// raised returns the engine's panic record v, a value Raise panicked with
// on a registry made without a PanicValue; ok is false for any other
// value.
func raised(v any) (pe *PanicError, ok bool) {
	pe, ok = v.(*PanicError)
	return pe, ok
}

// newUnmonitored is newRegistry with the monitor stopped at once, for a
// test that plays the monitor's part (its rounds, its counts).
func newUnmonitored(t *testing.T, cfg Config) *Registry {
	t.Helper()
	r := newRegistry(t, cfg)
	r.stopSpares()
	return r
}
