package bench

import (
	"testing"

	"github.com/spindle-go/spindle/pool"
	"github.com/spindle-go/spindle/runtime"
)

// BenchmarkForkParts takes forkjoin.Call's fork apart on fib(-fibn) at one
// worker, to show what each of its parts costs next to the lazy-fork
// floor: the same fork protocol (runtime's Enter, Offer, TryTakeBack,
// TakeBack) with the worker passed in and no deferred unwinding
// (explicit, unsafe if a half panics: test code only), then with the
// deferred unwinding of a panicking half that Call's contract needs
// (explicit-unwind), then with a check that the worker passed in is the
// caller's (explicit-checked), and Call itself, which looks the worker up.
func BenchmarkForkParts(b *testing.B) {
	n, check := fibInput(b)
	fam := newFamily(b)
	fam.fibSerial(n, check)
	fam.run("lazy-fork-floor", 1, func(b *testing.B) {
		w := new(fibFloorWorker)
		var got int64
		for b.Loop() {
			got = fibLazyFloor(w, n)
		}
		check(b, got)
	})
	kernels := []struct {
		name string
		fib  func(*runtime.Worker, int) int64
	}{
		{"explicit", fibExplicit},
		{"explicit-unwind", fibExplicitUnwind},
		{"explicit-checked", fibExplicitChecked},
		{"call", func(_ *runtime.Worker, n int) int64 { return FibCall(n) }},
	}
	for _, k := range kernels {
		fam.run(k.name, 1, func(b *testing.B) {
			var got int64
			onPool(b, 1, func(p *pool.Pool) {
				for b.Loop() {
					p.Run(func() { got = k.fib(runtime.CurrentWorker(), n) })
				}
			})
			check(b, got)
		})
	}
}

// partFrame is the record of the explicit forks: the second call of a
// fib fork.
type partFrame struct {
	job runtime.Job
	f   func(*runtime.Worker, int) int64
	arg int
	res int64
}

func (fr *partFrame) Run(w *runtime.Worker) {
	fr.res = fr.f(w, fr.arg)
	fr.job.Latch.Set()
}

func partSlot(w *runtime.Worker) *partFrame {
	slot := w.Enter()
	fr, ok := slot.Record.(*partFrame)
	if !ok {
		fr = new(partFrame)
		fr.job.Init(fr, w)
		slot.Hold(fr, &fr.job)
	}
	return fr
}

func fibExplicit(w *runtime.Worker, n int) int64 {
	if n < 2 {
		return int64(n)
	}
	fr := partSlot(w)
	fr.f, fr.arg = fibExplicit, n-2
	w.Offer()
	a := fibExplicit(w, n-1)
	var b int64
	if w.TryTakeBack(&fr.job) || w.TakeBack(&fr.job) {
		b = fibExplicit(w, n-2)
	} else {
		b = fr.res
		fr.job.Latch.Reset()
	}
	fr.f = nil
	return a + b
}

func fibExplicitUnwind(w *runtime.Worker, n int) int64 { return fibUnwound(w, n, false) }

func fibExplicitChecked(w *runtime.Worker, n int) int64 { return fibUnwound(w, n, true) }

// fibUnwound is explicit-unwind, and with check explicit-checked: the
// explicit fork with the deferred unwinding of a panicking first half,
// after checking, with check, that w is the caller's worker.
func fibUnwound(w *runtime.Worker, n int, check bool) int64 {
	if n < 2 {
		return int64(n)
	}
	if check && runtime.WorkerOf(runtime.CurrentG()) != w {
		panic("fibExplicitChecked: the worker passed in is not the caller's")
	}
	self := fibExplicitUnwind
	if check {
		self = fibExplicitChecked
	}
	fr := partSlot(w)
	fr.f, fr.arg = self, n-2
	w.Offer()
	step := runtime.ForkRunningA
	defer func() {
		if step != runtime.ForkDone {
			pe := w.UnwindFork(&fr.job, step, recover())
			fr.f = nil
			w.Registry().Raise(pe)
		}
	}()
	a := fibUnwound(w, n-1, check)
	var b int64
	if w.TryTakeBack(&fr.job) || w.TakeBack(&fr.job) {
		step = runtime.ForkRunningB
		b = fibUnwound(w, n-2, check)
	} else {
		b = fr.res
		fr.job.Latch.Reset()
	}
	step = runtime.ForkDone
	fr.f = nil
	return a + b
}
