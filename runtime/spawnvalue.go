package runtime

// Spawning with an argument.
//
// Scope.Spawn takes a closure: a task per tree node captures its node, and
// the closure (with the node copied into it) is allocated on the heap at
// every spawn. SpawnValue takes the function and the argument apart: both
// are copied into a task record that the workers recycle, as Spawn's
// records are, so once the records exist a spawn allocates nothing. The
// records are generic (valueJob[T]); a worker keeps up to maxFreeRecords
// of them (records.go) in one free list of any type (Worker.valueJobs),
// taking the newest one back only if it has the type wanted: a program that spawns one argument type, the usual
// case, always finds one, and one that mixes types at worst allocates.

// valueJob is a task spawned by SpawnValue.
type valueJob[T any] struct {
	job   Job
	fn    func(*Scope, T)
	x     T
	scope *Scope
}

// SpawnValue runs f(s, x) as a task of scope s, as Scope.Spawn runs a
// closure: the same rules (call it while the scope runs; a call after
// the scope finished panics naming call), at level 0. x is copied into
// the task's record.
func SpawnValue[T any](call string, s *Scope, f func(*Scope, T), x T) {
	if f == nil {
		panic(call + ": nil function")
	}
	if s.skip != nil && s.skipSpawn(call) { // scopeskip.go
		return
	}
	w := s.spawner(call)
	j := newValueJob[T](w)
	j.fn, j.x, j.scope = f, x, s
	s.queueTask(w, &j.job, true)
}

// newValueJob returns a record from w's free list if its newest entry is
// a valueJob[T], or a new one (also when w is nil: the caller is no
// worker).
func newValueJob[T any](w *Worker) *valueJob[T] {
	if w != nil {
		if n := len(w.valueJobs); n > 0 {
			j, ok := w.valueJobs[n-1].(*valueJob[T])
			// A record of another type is dropped rather than left on
			// top: a list full of one type would otherwise make every
			// spawn of another allocate, and drop its records, forever.
			w.valueJobs[n-1] = nil
			w.valueJobs = w.valueJobs[:n-1]
			if ok {
				return j
			}
		}
	}
	j := new(valueJob[T])
	j.job.Init(j, nil)
	return j
}

// Run runs the task on the current worker, then, while the newest job on
// the worker's deque is another task of the same scope and type spawned
// since it started (its descendants), runs that one in the same call
// (descendants.go), freeing each record first (records.go).
func (j *valueJob[T]) Run(w *Worker) {
	s := j.scope
	below := w.descendantsAbove()
	finished := false
	defer func() {
		if !finished {
			s.finishPanicked(w, recover())
		}
	}()
	for {
		f, x := j.fn, j.x
		var zero T
		j.fn, j.x, j.scope = nil, zero, nil // keep nothing of the task alive
		if len(w.valueJobs) < maxFreeRecords {
			w.valueJobs = append(w.valueJobs, j)
		}
		finished = false
		w.siblings = 0
		if s.skip == nil || !s.skip.Skip() { // scopeskip.go
			f(s, x)
		}
		finished = true
		if j = nextDescendant[T](w, s, w.endTask(s, below)); j == nil {
			return
		}
	}
}

// nextDescendant returns j, popped by endTask, if it is a task of s of
// type T, started (startDescendant), to be run next by the running task's
// Run; nil otherwise (a job of another kind goes back on the deque).
func nextDescendant[T any](w *Worker, s *Scope, j *Job) *valueJob[T] {
	if j == nil {
		return nil
	}
	if v, ok := j.runner.(*valueJob[T]); ok && v.scope == s {
		w.startDescendant(s)
		return v
	}
	w.unpop(j)
	return nil
}

// taskScope is the scope of the task, for scopeOf.
func (j *valueJob[T]) taskScope() *Scope { return j.scope }
