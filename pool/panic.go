package pool

import (
	"fmt"

	"github.com/spindle-go/spindle/runtime"
)

// PanicError carries a task's panic to the caller that waits for the task:
// Value is the value passed to panic, Stack the stack of the goroutine
// that panicked, taken where it panicked. Join, Scope, Run, Group.Wait,
// Future.Wait and every forkjoin function re-raise a task's panic as a
// *PanicError, once every task the call started has finished; a handler
// set with WithPanicHandler receives one.
//
// A PanicError is the memory of the engine's own panic record, under
// pool's name: the conversion where a panic leaves the engine costs
// nothing.
type PanicError struct {
	Value any
	Stack []byte
}

// Error describes the panic on one line, as errors print: its value and,
// when Stack shows it, the function and line that panicked, as in
// "spindle: task panicked: boom [main.leaf main.go:12]". A program that
// logs a PanicError and wants the whole stack prints it with %+v (or
// prints Stack).
func (e *PanicError) Error() string { return (*runtime.PanicError)(e).Error() }

// Format prints Error's line for %v and %s, and for %+v the line, a
// blank line and the stack where the task panicked.
func (e *PanicError) Format(s fmt.State, verb rune) { (*runtime.PanicError)(e).Format(s, verb) }

// Unwrap returns Value when it is an error, so errors.Is and errors.As see
// through a task's panic.
func (e *PanicError) Unwrap() error { return (*runtime.PanicError)(e).Unwrap() }

// panicValue shows the engine's panic records as PanicErrors: every
// registry pool starts is given it (runtime.Config.PanicValue).
type panicValue struct{}

func (panicValue) Wrap(pe *runtime.PanicError) error { return (*PanicError)(pe) }

func (panicValue) Unwrap(v any) *runtime.PanicError {
	if pe, ok := v.(*PanicError); ok {
		return (*runtime.PanicError)(pe)
	}
	return nil
}

// raise panics with pe as a *PanicError, where no registry is at hand.
func raise(pe *runtime.PanicError) { panic((*PanicError)(pe)) }

// recoverPanic is for code that catches panics without a closure where
// no registry is at hand: deferred directly, it stores the panic's record
// (see runtime.Registry.AsPanicError).
func recoverPanic(dst **runtime.PanicError) {
	if v := recover(); v != nil {
		if *dst = (panicValue{}).Unwrap(v); *dst == nil {
			*dst = runtime.AsPanicError(v)
		}
	}
}
