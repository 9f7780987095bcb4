package pool_test

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/spindle-go/spindle/forkjoin"
	"github.com/spindle-go/spindle/pool"
)

// catchPanicError runs f and returns its panic, which must be a *PanicError.
func catchPanicError(t *testing.T, f func()) *pool.PanicError {
	t.Helper()
	v := recoverValue(f)
	require.NotNil(t, v, "no panic")
	pe, ok := v.(*pool.PanicError)
	require.True(t, ok, "panic value %T is not *pool.PanicError", v)
	return pe
}

func panicsWith(v any) func() { return func() { panic(v) } }

func TestJoinPanics(t *testing.T) {
	p := newPool(t, pool.WithWorkers(2))
	for _, tc := range []struct {
		name string
		a, b func()
		want any
	}{
		{"a panics", panicsWith("a"), func() {}, "a"},
		{"b panics", func() {}, panicsWith("b"), "b"},
		{"both panic, a wins", panicsWith("a"), panicsWith("b"), "a"},
		{"error value", func() {}, panicsWith(errBoom), errBoom},
	} {
		t.Run(tc.name, func(t *testing.T) {
			watchdog(t, func() {
				pe := catchPanicError(t, func() { p.Join(tc.a, tc.b) })
				assert.Equal(t, tc.want, pe.Value)
				assert.Contains(t, string(pe.Stack), "panicsWith")
				if err, ok := tc.want.(error); ok {
					assert.ErrorIs(t, pe, err)
				}
				ran := false
				p.Run(func() { ran = true }) // the pool stays usable
				assert.True(t, ran)
			})
		})
	}
}

// TestJoinPanicWaitsForStolenHalf: a panics at once while b, stolen by the
// other worker, is still running; the panic must surface only after b is
// done.
func TestJoinPanicWaitsForStolenHalf(t *testing.T) {
	p := newPool(t, pool.WithWorkers(2))
	watchdog(t, func() {
		for range 20 {
			var bStarted, bDone atomic.Bool
			pe := catchPanicError(t, func() {
				p.Join(func() {
					for !bStarted.Load() { // wait until the other worker stole b
						time.Sleep(10 * time.Microsecond)
					}
					panic("a")
				}, func() {
					bStarted.Store(true)
					time.Sleep(time.Millisecond)
					bDone.Store(true)
				})
			})
			assert.Equal(t, "a", pe.Value)
			assert.True(t, bDone.Load(), "Join re-panicked before b finished")
		}
	})
}

func TestScopePanicWaitsForAll(t *testing.T) {
	p := newPool(t, pool.WithWorkers(2))
	watchdog(t, func() {
		var done atomic.Int64
		pe := catchPanicError(t, func() {
			p.Scope(func(s *pool.Scope) {
				for i := range 8 {
					s.Spawn(func(*pool.Scope) {
						time.Sleep(time.Millisecond)
						done.Add(1)
						if i == 3 {
							panic(errBoom)
						}
					})
				}
			})
		})
		assert.ErrorIs(t, pe, errBoom)
		assert.EqualValues(t, 8, done.Load())
	})
}

func TestRunPanicIsPanicError(t *testing.T) {
	p := newPool(t, pool.WithWorkers(1))
	watchdog(t, func() {
		pe := catchPanicError(t, func() { p.Run(panicsWith(42)) })
		assert.Equal(t, 42, pe.Value)
		// From a worker of the same pool, too.
		var inner *pool.PanicError
		p.Run(func() { inner, _ = recoverValue(func() { p.Run(panicsWith(43)) }).(*pool.PanicError) })
		require.NotNil(t, inner)
		assert.Equal(t, 43, inner.Value)
	})
}

func TestPanicHandlerGetsDetachedPanics(t *testing.T) {
	got := make(chan any, 1)
	p := newPool(t, pool.WithWorkers(1), pool.WithPanicHandler(func(v any) { got <- v }))
	watchdog(t, func() {
		p.Spawn(panicsWith("detached"))
		pe, ok := (<-got).(*pool.PanicError)
		require.True(t, ok)
		assert.Equal(t, "detached", pe.Value)
	})
}

func TestPanicErrorUnwrap(t *testing.T) {
	assert.Nil(t, (&pool.PanicError{Value: "x"}).Unwrap())
	assert.True(t, errors.Is(&pool.PanicError{Value: errBoom}, errBoom))
	assert.Contains(t, (&pool.PanicError{Value: "x", Stack: []byte("stack")}).Error(), "x")
}

// A PanicError prints on one line, naming where the task panicked; %+v
// adds the stack.
func TestPanicErrorPrintsOneLine(t *testing.T) {
	p := newPool(t, pool.WithWorkers(1))
	watchdog(t, func() {
		pe := catchPanicError(t, func() { p.Run(panicsWith("boom")) })
		line := pe.Error()
		assert.NotContains(t, line, "\n")
		assert.Contains(t, line, "spindle: task panicked: boom")
		assert.Regexp(t, `\[pool_test\.\S*panicsWith\S* panic_test\.go:\d+\]$`, line, "the site")
		assert.Equal(t, line, fmt.Sprint(pe))
		assert.Equal(t, line, fmt.Sprintf("%v", pe))
		assert.Equal(t, fmt.Sprintf("%q", line), fmt.Sprintf("%q", pe))
		full := fmt.Sprintf("%+v", pe)
		assert.True(t, strings.HasPrefix(full, line+"\n\n"))
		assert.Contains(t, full, string(pe.Stack))
		// Wrapped, it stays one line.
		assert.NotContains(t, fmt.Errorf("job 3: %w", pe).Error(), "\n")
		// A stack of another shape gives the value alone.
		assert.Equal(t, "spindle: task panicked: x", (&pool.PanicError{Value: "x", Stack: []byte("stack")}).Error())
	})
}

// TestDefaultPanicHandlerCrashes runs itself as a child process whose
// detached task panics: the child must die with the panic and its stack.
func TestDefaultPanicHandlerCrashes(t *testing.T) {
	if os.Getenv("SPINDLE_CRASH_CHILD") == "1" {
		p, err := pool.New(pool.WithWorkers(1))
		if err != nil {
			os.Exit(3)
		}
		p.Spawn(func() { panic("detached boom") })
		time.Sleep(10 * time.Second)
		os.Exit(0) // not reached when the panic crashes the process
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestDefaultPanicHandlerCrashes$")
	cmd.Env = append(os.Environ(), "SPINDLE_CRASH_CHILD=1")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit, "child did not crash; output:\n%s", out)
	assert.Equal(t, 2, exit.ExitCode())
	assert.Contains(t, string(out), "detached boom")
	assert.Contains(t, string(out), "TestDefaultPanicHandlerCrashes.func")
}

// TestGoexitInTaskCrashesLoudly: a task that calls runtime.Goexit (as
// t.FailNow does) ends its worker's goroutine with jobs half done; the
// program must die with a message saying so, not hang.
func TestGoexitInTaskCrashesLoudly(t *testing.T) {
	if os.Getenv("SPINDLE_GOEXIT_CHILD") == "1" {
		p, err := pool.New(pool.WithWorkers(1))
		if err != nil {
			os.Exit(3)
		}
		go p.Run(func() { runtime.Goexit() })
		time.Sleep(10 * time.Second)
		os.Exit(0) // not reached
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestGoexitInTaskCrashesLoudly$")
	cmd.Env = append(os.Environ(), "SPINDLE_GOEXIT_CHILD=1")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit, "child did not crash; output:\n%s", out)
	assert.Contains(t, string(out), "runtime.Goexit")
}

// TestPanickingPanicHandlerCrashes: a panic handler that panics must not
// unwind into the task the worker happened to be helping (another caller's
// Run); the program crashes with the handler's panic instead.
func TestPanickingPanicHandlerCrashes(t *testing.T) {
	if os.Getenv("SPINDLE_HANDLER_CHILD") == "1" {
		p, err := pool.New(pool.WithWorkers(1), pool.WithPanicHandler(func(v any) { panic(v) }))
		if err != nil {
			os.Exit(3)
		}
		v := recoverValue(func() {
			p.Run(func() {
				p.Scope(func(s *pool.Scope) {
					s.Spawn(func(*pool.Scope) {})
					pool.Spawn(func() { panic("detached boom") })
				})
			})
		})
		if v != nil {
			os.Stdout.WriteString("LEAKED INTO RUN\n")
			os.Exit(4)
		}
		time.Sleep(10 * time.Second)
		os.Exit(0) // not reached when the handler's panic crashes the process
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestPanickingPanicHandlerCrashes$")
	cmd.Env = append(os.Environ(), "SPINDLE_HANDLER_CHILD=1")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit, "child did not crash; output:\n%s", out)
	assert.Equal(t, 2, exit.ExitCode(), "output:\n%s", out)
	assert.Contains(t, string(out), "detached boom")
	assert.NotContains(t, string(out), "LEAKED INTO RUN")
}

// A panic that crosses a forkjoin call, a join and a scope comes out as one
// *PanicError holding the original value: the engine recognises pool's
// PanicError on its way back in and does not wrap it again at each level.
func TestNestedPanicIsWrappedOnce(t *testing.T) {
	p := newPool(t, pool.WithWorkers(2))
	watchdog(t, func() {
		pe := catchPanicError(t, func() {
			p.Scope(func(s *pool.Scope) {
				s.Spawn(func(*pool.Scope) {
					pool.Join(func() {
						forkjoin.Do(func(int) { panic("deep") }, 1, 2)
					}, func() {})
				})
			})
		})
		assert.Equal(t, "deep", pe.Value)
	})
}
