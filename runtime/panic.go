package runtime

import (
	"errors"
	"fmt"
	"runtime/debug"
)

// PanicError carries a panic from the task where it happened to the caller
// that waits for the task: Value is what was passed to panic, Stack the
// panicking goroutine's stack at the point of the panic.
type PanicError struct {
	Value any
	Stack []byte
}

func (e *PanicError) Error() string {
	return fmt.Sprintf("spindle: task panicked: %v\n\n%s", e.Value, e.Stack)
}

// Unwrap returns Value when it is an error, so errors.Is and errors.As see
// through a task's panic.
func (e *PanicError) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}

// ErrClosed is the error (wrapped) of calls on a pool that was closed.
var ErrClosed = errors.New("spindle: pool is closed")

// Catch runs f and returns its panic, if any, as a *PanicError. A panic
// that already is a *PanicError (one re-raised by a nested join) is passed
// on as it is, keeping the original stack.
func Catch(f func()) (pe *PanicError) {
	defer func() {
		if v := recover(); v != nil {
			pe = toPanicError(v)
		}
	}()
	f()
	return nil
}

// AsPanicError converts a recovered panic value to a *PanicError, keeping
// one that already is. Call it from the deferred function that recovered
// (the stack is taken there).
func AsPanicError(v any) *PanicError { return toPanicError(v) }

func toPanicError(v any) *PanicError {
	if pe, ok := v.(*PanicError); ok {
		return pe
	}
	// Called inside the deferred function while panicking: the stack still
	// shows the frames that panicked.
	return &PanicError{Value: v, Stack: debug.Stack()}
}

// Recover is for records that catch panics without a closure: deferred
// directly, as `defer runtime.Recover(&rec.panic)`, it stores the panic.
func Recover(dst **PanicError) {
	if v := recover(); v != nil {
		*dst = toPanicError(v)
	}
}
