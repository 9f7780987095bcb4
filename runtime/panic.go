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

// PanicValue is how a registry shows its panic records to user code
// (Config.PanicValue). pool makes every registry with its own: user code
// then handles pool's documented PanicError, the same memory as the
// engine's record under pool's type, so converting costs nothing.
type PanicValue interface {
	// Wrap returns pe as user code sees it: the value a task's panic is
	// re-raised with, handed to a panic handler or made a context's cause.
	Wrap(pe *PanicError) error
	// Unwrap returns the record behind v if v is a value Wrap returned
	// (a re-raised panic on its way up through an enclosing task, which
	// must not be wrapped twice), and nil for any other value.
	Unwrap(v any) *PanicError
}

// recordValue is the PanicValue of a registry made without one: user
// code sees the record itself.
type recordValue struct{}

func (recordValue) Wrap(pe *PanicError) error { return pe }
func (recordValue) Unwrap(any) *PanicError    { return nil }

// Raise panics with pe as r's user code sees it (Config.PanicValue), or
// does nothing if pe is nil: every place where a task's panic leaves the
// engine for its caller raises it this way.
func (r *Registry) Raise(pe *PanicError) {
	if pe != nil {
		panic(r.panics.Wrap(pe))
	}
}

// UserValue is pe as r's user code sees it, for a panic handed over rather
// than raised (a panic handler's argument, a context's cause).
func (r *Registry) UserValue(pe *PanicError) error { return r.panics.Wrap(pe) }

// Catch runs f and returns its panic, if any, as a *PanicError. A panic
// that is one of r's re-raised records (a nested join's, on its way up) is
// passed on as it is, keeping the original stack.
func (r *Registry) Catch(f func()) (pe *PanicError) {
	defer func() {
		if v := recover(); v != nil {
			pe = r.AsPanicError(v)
		}
	}()
	f()
	return nil
}

// AsPanicError converts a recovered panic value to a *PanicError, keeping
// a record that already is one (itself, or as r's user code sees it).
// Call it from the deferred function that recovered (the stack is taken
// there).
func (r *Registry) AsPanicError(v any) *PanicError {
	if pe := r.panics.Unwrap(v); pe != nil {
		return pe // re-raised to user code and on its way up again
	}
	return AsPanicError(v)
}

// AsPanicError is Registry.AsPanicError for a registry made without a
// PanicValue: it keeps a *PanicError and records any other value. Code
// that runs on no registry calls it after recognising its own user type.
func AsPanicError(v any) *PanicError {
	if pe, ok := v.(*PanicError); ok {
		return pe
	}
	// Called inside the deferred function while panicking: the stack still
	// shows the frames that panicked.
	return &PanicError{Value: v, Stack: debug.Stack()}
}
