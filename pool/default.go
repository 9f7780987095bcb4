package pool

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/spindle-go/spindle/internal/defaultreg"
	"github.com/spindle-go/spindle/runtime"
)

// forkjoin reads the default pool's registry through defaultreg.
func init() { defaultreg.Registry = defaultRegistry }

// The default pool. current is the pool Default returns; nil until the
// first call of Default or SetDefault. builtin is the pool made with the
// default options on the first Default that finds current nil: it is
// never closed, even once SetDefault has replaced it (calls may still be
// running on it, and it costs nothing idle). defaultMu orders SetDefault
// against Close: a pool is the default or closing, never both.
var (
	current     atomic.Pointer[Pool]
	defaultMu   sync.Mutex
	builtin     *Pool
	builtinOnce sync.Once
)

// Default returns the process-wide pool: the one last given to
// SetDefault, else a pool with the default options, made on first use.
// Every call that runs outside a pool (Join, Spawn, NewGroup, and package
// forkjoin's functions called from a goroutine that is no worker) runs on
// it. It is not closed while it is the default: its Close returns
// ErrCloseDefault.
//
// Inside Analyze's function it returns the analysis worker's pool, as
// Current does, and does not start the default pool: calls on any pool run
// in place on the analysis worker, so the default pool's workers would do
// nothing there, and their start would be timed as part of the analysed
// computation.
func Default() *Pool {
	if w := runtime.CurrentWorker(); w != nil && w.Analysing() {
		return poolOf(w.Registry())
	}
	if p := current.Load(); p != nil {
		return p
	}
	if runtime.InSynctestBubble() {
		// Its goroutines would be the bubble's, and the bubble's end would
		// wait for them forever: the default pool is never closed.
		panic("pool.Default: first used inside a testing/synctest bubble, whose end would wait for the default pool's workers forever; " +
			"call pool.Default() once before synctest.Test, or make a pool in the bubble with New and Close it there")
	}
	builtinOnce.Do(func() {
		p, err := New()
		if err != nil {
			panic(fmt.Sprintf("pool.Default: %v", err))
		}
		defaultMu.Lock() // closingUnlessDefault reads it
		builtin = p
		defaultMu.Unlock()
		runtime.KeepForGood(p.reg)
	})
	current.CompareAndSwap(nil, builtin) // unless SetDefault came first
	return current.Load()
}

// SetDefault makes p the pool that Default returns, so that every call
// that runs outside a pool runs on p from then on: a program that wants
// other options for its package-level calls (fewer workers, unlocked
// threads for jobs that allocate, a panic handler) makes its pool and
// calls SetDefault once, first thing in main, as with slog.SetDefault.
//
// Calls that already started on the previous default finish there; calls
// that start after SetDefault returns run on p; a call racing with it runs
// on one or the other, whole. Nothing is lost either way. The previous
// default keeps running (a pool made by Default is never closed; one
// given to SetDefault before may be closed now). p cannot be closed while
// it is the default (Close returns ErrCloseDefault).
//
// SetDefault panics if p is nil or closed.
func SetDefault(p *Pool) {
	p.mustBeMade("pool.SetDefault")
	defaultMu.Lock()
	defer defaultMu.Unlock()
	if p.closing {
		panic(fmt.Errorf("pool.SetDefault: %w", ErrClosed))
	}
	current.Store(p)
}

// closingUnlessDefault marks p as closing and returns true, unless p is
// the default or the built-in pool (false: Close refuses).
func closingUnlessDefault(p *Pool) bool {
	defaultMu.Lock()
	defer defaultMu.Unlock()
	if p == current.Load() || p == builtin {
		return false
	}
	p.closing = true
	return true
}

// isDefault reports whether p is the default or the built-in pool, which
// Close refuses to close.
func isDefault(p *Pool) bool {
	defaultMu.Lock()
	defer defaultMu.Unlock()
	return p == current.Load() || p == builtin
}

// notClosing undoes closingUnlessDefault for a Close that did not start.
func notClosing(p *Pool) {
	defaultMu.Lock()
	defer defaultMu.Unlock()
	p.closing = false
}

// Current returns the pool whose worker runs the caller, or Default() when
// the caller is not a worker.
func Current() *Pool {
	if w := runtime.CurrentWorker(); w != nil {
		return poolOf(w.Registry())
	}
	return Default()
}
