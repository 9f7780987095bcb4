package runtime

// Scopes that drop their tasks (pool.Pool.ScopeContext).
//
// A scope made by ScopeSkipping asks its Skipper, on the worker about to
// start it, whether to drop its body and then each of its tasks: a
// closure task (Spawn, SpawnPriority), a typed one (SpawnValue) and every
// index of a bulk spawn (SpawnMany). A dropped task counts as finished
// without having run, so the scope still waits for every task that
// started. A spawn asks too (skipSpawn): once the Skipper says yes, a
// body or task that goes on spawning in a loop queues nothing, and its
// loop costs a call per spawn rather than a queued task. A dropped body
// spawns nothing: the scope then ends at once.
//
// A plain scope has no Skipper: each of its spawns and task starts pays
// one nil test of a field in the scope's read-mostly part (scopeHead),
// which they read anyway for the scope's registry and owner; no atomic,
// no call.

// Skipper decides, for a scope made by ScopeSkipping, which tasks are
// dropped.
type Skipper interface {
	// Skip reports whether the body or task about to start must be
	// dropped. It is called once per task, just before the task would
	// run, on whichever worker runs it, possibly on several at once.
	// Once it has returned true it must always return true: a bulk
	// spawn's part drops its whole rest on one answer (runCounted).
	Skip() bool
}

// ScopeSkipping is Scope for a scope whose body and tasks sk may drop
// (nil: none, Scope itself).
func (r *Registry) ScopeSkipping(call string, sk Skipper, body func(*Scope)) {
	if w := CurrentWorker(); w != nil && (w.reg == r || w.analysing) {
		w.scope(body, sk)
		return
	}
	r.Run(call, func() { CurrentWorker().scope(body, sk) })
}

// Skipper returns the Skipper that s was made with, nil for a plain
// scope or a group.
func (s *Scope) Skipper() Skipper { return s.skip }

// skipSpawn reports whether a spawn on s, a scope with a Skipper, is
// dropped: it is not queued, nor counted. A spawn on a finished scope
// panics naming call, as it does when it is not dropped.
//
//go:noinline
func (s *Scope) skipSpawn(call string) bool {
	if !s.skip.Skip() {
		return false
	}
	if s.done.Probe() {
		s.finishedPanic(call)
	}
	return true
}
