//go:build !linux || spindle_portable

package runtime

// JoinOffPool runs Join(a, b) on a worker of r and blocks the caller, which
// must be no worker of any registry, until both have returned. Without the
// futex (offpool_linux.go) the caller cannot pin its stack, so a is carried
// in a closure and escapes to the heap.
func (r *Registry) JoinOffPool(call string, a, b func()) {
	r.Run(call, func() { CurrentWorker().Join(a, b) })
}
