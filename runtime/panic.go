package runtime

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"runtime/debug"
	"strings"
)

// PanicError carries a panic from the task where it happened to the caller
// that waits for the task: Value is what was passed to panic, Stack the
// panicking goroutine's stack at the point of the panic.
type PanicError struct {
	Value any
	Stack []byte
}

// Error describes the panic on one line, as errors print: its value and,
// when Stack shows it, the function and the line that panicked. The whole
// stack is Stack, which Format prints after the line for %+v.
func (e *PanicError) Error() string {
	msg := fmt.Sprintf("spindle: task panicked: %v", e.Value)
	if site := panicSite(e.Stack); site != "" {
		msg += " [" + site + "]"
	}
	return msg
}

// Format prints Error's line for %v and %s, quoted for %q, and for %+v
// the line, a blank line and the stack.
func (e *PanicError) Format(s fmt.State, verb rune) {
	switch {
	case verb == 'v' && s.Flag('+'):
		fmt.Fprintf(s, "%s\n\n%s", e.Error(), e.Stack)
	case verb == 'v' || verb == 's':
		io.WriteString(s, e.Error())
	case verb == 'q':
		fmt.Fprintf(s, "%q", e.Error())
	default:
		fmt.Fprintf(s, "%%!%c(%s)", verb, e.Error())
	}
}

// panicSite finds, in a stack printed by runtime/debug.Stack at the point
// of a panic, the frame that called panic: the function line after the
// innermost "panic(" frame and its file:line, as "pkg.Func file.go:12"
// (pkg the last element of the package's path).
// It returns "" when the stack does not have that shape.
func panicSite(stack []byte) string {
	lines := strings.Split(string(stack), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if !strings.HasPrefix(lines[i], "panic(") || i+3 >= len(lines) {
			continue
		}
		fn := lines[i+2]
		if j := strings.LastIndexByte(fn, '('); j > 0 {
			fn = fn[:j]
		}
		fn = fn[strings.LastIndexByte(fn, '/')+1:] // the package's name, not its path
		file := strings.TrimSpace(lines[i+3])
		if j := strings.LastIndexByte(file, ' '); j > 0 {
			file = file[:j] // drop the PC offset
		}
		file = filepath.Base(file)
		return fn + " " + file
	}
	return ""
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

// The value user code sees. The engine records a panic as a *PanicError;
// what it raises to user code is wrapPanic's value, pool's own PanicError
// (the same memory under pool's type), so that pool documents the type
// users handle. A re-raised value that comes back into the engine (a
// nested join's panic, unwinding through an enclosing task) is recognised
// by unwrapPanic and not wrapped twice.
var (
	wrapPanic   func(*PanicError) any
	unwrapPanic func(any) *PanicError
)

// SetPanicValue installs the conversions between the engine's panic
// record and the value raised to user code. pool calls it once, from its
// init function, before any pool exists.
func SetPanicValue(wrap func(*PanicError) any, unwrap func(any) *PanicError) {
	wrapPanic, unwrapPanic = wrap, unwrap
}

// Raise panics with pe as user code sees it (see SetPanicValue): every
// place where a task's panic leaves the engine for its caller raises it
// this way.
func Raise(pe *PanicError) {
	if wrapPanic != nil {
		panic(wrapPanic(pe))
	}
	panic(pe)
}

// UserValue is pe as user code sees it, for a panic handed over rather
// than raised (a panic handler's argument, a context's cause). It is an
// error.
func UserValue(pe *PanicError) error {
	if wrapPanic != nil {
		return wrapPanic(pe).(error)
	}
	return pe
}

// AsPanicError converts a recovered panic value to a *PanicError, keeping
// one that already is. Call it from the deferred function that recovered
// (the stack is taken there).
func AsPanicError(v any) *PanicError { return toPanicError(v) }

func toPanicError(v any) *PanicError {
	if pe, ok := v.(*PanicError); ok {
		return pe
	}
	if unwrapPanic != nil {
		if pe := unwrapPanic(v); pe != nil {
			return pe // re-raised to user code and on its way up again
		}
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
