package pool

import (
	"errors"
	"slices"
	"sync/atomic"
	"time"

	"github.com/spindle-go/spindle/runtime"
)

// WorkerLocked reports whether the calling goroutine is a worker locked to
// its OS thread.
func WorkerLocked() bool {
	w := runtime.CurrentWorker()
	return w != nil && w.Locked()
}

// MeasureStealCost measures what StealCost documents.
var MeasureStealCost = measureStealCost

// measureStealCost returns (0 if it could not measure) the median of up to 21 measured delays between
// one worker of a two-worker pool publishing a job (pool.Join's second
// half) and the other worker, already looking for work, starting it. The
// trials run back to back in one task, so that the thief of a trial is
// still looking when the next one publishes (a sleeping thief would add
// its wake-up, a scheduler's latency, not a steal's); the first is
// dropped. The first half waits, spinning, up to a millisecond for the
// steal; trials where the second half was not stolen are dropped too.
func measureStealCost() time.Duration {
	p, err := New(WithWorkers(2), WithName("spindle-steal-probe"))
	if err != nil {
		return 0
	}
	defer func() { _ = p.Close() }()
	var samples []time.Duration
	p.Run(func() {
		me := WorkerIndex()
		for trial := 0; trial < 60 && len(samples) < 22; trial++ {
			var stolenAfter atomic.Int64
			t0 := time.Now()
			Join(func() {
				for stolenAfter.Load() == 0 && time.Since(t0) < time.Millisecond {
				}
			}, func() {
				if WorkerIndex() != me {
					stolenAfter.Store(max(1, int64(time.Since(t0))))
				}
			})
			if d := stolenAfter.Load(); d > 0 {
				samples = append(samples, time.Duration(d))
			}
		}
	})
	if len(samples) < 2 {
		return 0
	}
	samples = samples[1:]
	slices.Sort(samples)
	return samples[len(samples)/2]
}

// BuiltinMade reports whether Default has made its built-in pool.
func BuiltinMade() bool {
	defaultMu.Lock()
	defer defaultMu.Unlock()
	return builtin != nil
}

// ReadGOMAXPROCS makes p read GOMAXPROCS now, as its next call from
// outside would (a test helper that raised it after making p).
func ReadGOMAXPROCS(p *Pool) { p.reg.CheckProcs() }

// CloseDefaults closes the pools a process keeps for good
// (runtime.CloseKept: the built-in default pool, the analysis worker's)
// and the pool SetDefault last made the default, bypassing
// ErrCloseDefault, for the end of a test binary (TestMain): neither
// Default nor Analyze may be called after.
func CloseDefaults() error {
	defaultMu.Lock()
	last := current.Load()
	builtin = nil
	current.Store(nil)
	defaultMu.Unlock()
	if last != nil && !last.closing {
		if err := last.Close(); err != nil && !errors.Is(err, ErrClosed) {
			return err
		}
	}
	return runtime.CloseKept()
}

// WithoutDefault runs f as if no default pool had been made yet (Default
// would make one), then puts the default back. Tests run one at a time
// around it.
func WithoutDefault(f func()) {
	saved := current.Swap(nil)
	defer current.Store(saved)
	f()
}

// Dropping reports whether CloseNow has begun on p.
func Dropping(p *Pool) bool { return p.reg.Dropping() }
