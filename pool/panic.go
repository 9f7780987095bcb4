package pool

import "github.com/spindle-go/spindle/runtime"

// PanicError carries a task's panic to the caller that waits for the task:
// Value is the value passed to panic, Stack the stack of the goroutine
// that panicked, taken where it panicked. Join, Scope, Run, Group.Wait,
// Future.Wait and every forkjoin function re-raise a task's panic as a
// *PanicError, once every task the call started has finished; a handler
// set with WithPanicHandler receives one.
//
// PanicError is the engine's panic record (runtime.PanicError) under
// pool's name: the engine converts it, for free, where a panic leaves it
// for user code.
type PanicError struct {
	Value any
	Stack []byte
}

// Error describes the panic: its value, then the stack where it happened.
func (e *PanicError) Error() string { return (*runtime.PanicError)(e).Error() }

// Unwrap returns Value when it is an error, so errors.Is and errors.As see
// through a task's panic.
func (e *PanicError) Unwrap() error { return (*runtime.PanicError)(e).Unwrap() }

func init() {
	runtime.SetPanicValue(
		func(pe *runtime.PanicError) any { return (*PanicError)(pe) },
		func(v any) *runtime.PanicError {
			if pe, ok := v.(*PanicError); ok {
				return (*runtime.PanicError)(pe)
			}
			return nil
		})
}
