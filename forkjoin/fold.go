package forkjoin

import (
	"sync/atomic"

	"github.com/spindle-go/spindle/runtime"
)

// Fold folds the indexes [lo, hi) into accumulators of type S, possibly
// in parallel on the current pool, and merges them (Rayon's fold followed
// by reduce). It is Reduce for when the accumulator is not an element: a
// map of word counts, a histogram, a slice of matches.
//
// The range is cut into consecutive pieces of at least grain indexes each
// (one piece when the range holds fewer), about 8 per worker when the
// range is large enough; grain <= 0 asks for no minimum (those 8 per
// worker), as For's grain <= 0 picks its chunks. A run of pieces folds into one accumulator: init
// makes it, at most once per piece, so body may mutate it freely and
// return it; body(acc, l, h) folds the indexes [l, h) of a piece into acc
// and returns the new accumulator. merge(a, b) combines the results of
// two consecutive runs, a before b; it must be associative and need not be
// commutative. The result is therefore as if body had folded the whole
// range in order, from one init(), wherever the pieces ran: for a merge
// that agrees with body (merge(body(init(), l, m), body(init(), m, h)) ==
// body(init(), l, h)), exactly the serial fold. An empty range returns
// init(). A range that is a single piece is folded on the calling
// goroutine without touching a pool.
//
// Why runs: a worker that runs piece k right after piece k-1 of the same
// Fold, with nothing of that Fold in between, goes on with k-1's
// accumulator instead of making a new one, since folding k into it is what
// the serial fold does. So a Fold nobody steals from calls init once, and
// merge runs once per piece that started on a different worker than its
// predecessor (a steal), not once per piece: merges of maps cost as much as
// their smaller operand, and that is what keeps a word count scaling.
//
// Fold is the way to keep state per piece of a loop. A slice of states
// indexed by pool.WorkerIndex() breaks where the loop runs on the calling
// goroutine (a small range outside a pool: WorkerIndex is then -1), and a
// worker that steals while it waits may run two pieces at once on one
// index; Fold's accumulators belong to runs of pieces, wherever they run.
//
// Called from a goroutine that is no worker while the default pool's
// callers fill its Ps (request handlers that each fold, say), Fold folds
// the pieces in order on the caller into one accumulator, where
// WorkerIndex is -1: no worker could help without taking a P from another
// caller, and their bookkeeping would only cost. Should that take longer
// than the pool's blocked-task monitor takes to look twice (a piece that
// blocks, a long request), the pieces left go to the pool (the guide's "In
// a server: calls from goroutines"). So a piece must not wait for another
// piece of the same Fold, which Fold never promises to run at the same
// time (For's chunks may).
//
// A nil function panics with a message naming the call. A panic in init, body or merge stops the starting of pieces
// and is re-raised as a *pool.PanicError once the pieces already started
// have finished.
func Fold[S any](lo, hi, grain int, init func() S, body func(acc S, lo, hi int) S, merge func(a, b S) S) S {
	if init == nil || body == nil || merge == nil {
		nilFunc("forkjoin.Fold")
	}
	if lo >= hi {
		return topCall(callInit[S], nil, init, false)
	}
	n := uint(hi) - uint(lo) // fits in a uint, as in For
	pieces := n / uint(max(grain, autoGrain(n)))
	spec := foldSpec[S]{lo, n, int(pieces), init, body, merge}
	if pieces <= 1 {
		return topCall(foldWhole[S], nil, spec, false)
	}
	return topCall(foldPieces[S], foldSerial[S], spec, true)
}

// foldSerial folds spec's pieces in order on the calling goroutine into
// one accumulator, as a worker's run of them would: Fold's serial form
// (see enterSerialCall). Once c is overdue it hands the pieces left to
// the pool, and merges what they fold after its own.
func foldSerial[S any](c runtime.SerialCall, spec foldSpec[S]) S {
	left := false
	defer serialLeave(c, &left)
	acc := spec.init()
	for k := range spec.pieces {
		if k > 0 && c.Overdue() {
			left = true
			c.Leave()
			rest := spec
			rest.lo += int(spec.start(k))
			rest.n -= spec.start(k)
			rest.pieces -= k
			return spec.merge(acc, topCallOffPool(foldPieces[S], nil, rest))
		}
		acc = spec.body(acc, spec.lo+int(spec.start(k)), spec.lo+int(spec.start(k+1)))
	}
	return acc
}

// foldSpec is a Fold of several pieces, before a worker takes it up.
type foldSpec[S any] struct {
	lo     int
	n      uint
	pieces int
	init   func() S
	body   func(acc S, lo, hi int) S
	merge  func(a, b S) S
}

// foldPieces runs a Fold of several pieces on the current worker.
func foldPieces[S any](spec foldSpec[S]) S {
	w := runtime.CurrentWorker() // the Fold's worker throughout: calls nest on it
	f := takeFolder(w, spec)
	acc := f.run()
	f.release(w)
	return acc
}

// start returns the offset of piece k's first index: the n indexes are
// spread evenly, so every piece holds n/pieces or one more.
func (s *foldSpec[S]) start(k int) uint {
	p := uint(s.pieces)
	base, extra := s.n/p, s.n%p
	return uint(k)*base + min(uint(k), extra)
}

// foldWhole runs a Fold as a single piece, on the calling goroutine.
func foldWhole[S any](spec foldSpec[S]) S {
	return spec.body(spec.init(), spec.lo, int(uint(spec.lo)+spec.n))
}

func callInit[S any](init func() S) S { return init() }

// folder is a Fold of several pieces in progress. Piece k covers the
// indexes lo + [start(k), start(k+1)); runs[k] holds the accumulator of the
// run that begins with piece k, if one does. Each worker that folds a
// piece claims an entry of open for its last run that may go on (see
// openRun): at most one entry per piece, since a worker claims one only
// for a piece it folds, so a Fold costs memory for its pieces, not for
// every slot its pool may have (a pool with guests has hundreds). Only
// the worker that claimed an entry touches its run, and runs[k] only the
// worker of the run beginning at k, until the pieces are all done.
type folder[S any] struct {
	foldSpec[S]
	runs    []foldRun[S]
	open    []openEntry
	claimed atomic.Int32 // entries of open claimed so far
	stop    atomic.Bool  // a piece panicked: start no more
	// foldFn is the method value fold, made once per folder: For takes a
	// function, and a method value made per Fold is an allocation.
	foldFn func(pl, ph int)
}

// takeFolder returns a folder for spec, with every run and entry free:
// the one w's last Fold of the same type left in w's scratch cell
// (runtime.Worker.Scratch), its runs and entries grown if spec has more
// pieces, or a new one (which keeps what it grows to). A folder per Fold
// was most of a Fold's bytes, and those pace the garbage collector in a
// server that folds per request (docs/performance/server.md). The cell,
// not a sync.Pool: its first Get or Put on each P after a collection
// takes a process-wide lock, and handlers computing side by side queue
// on it (docs/performance/server.md, "Locks on a caller's path"). The
// cell is empty while a Fold uses its folder, so a Fold nested in one of
// its pieces on the same worker makes its own.
func takeFolder[S any](w *runtime.Worker, spec foldSpec[S]) *folder[S] {
	f, _ := takeScratch(w).(*folder[S])
	if f == nil {
		f = new(folder[S])
		f.foldFn = f.fold
	}
	if cap(f.runs) < spec.pieces {
		f.runs = make([]foldRun[S], max(spec.pieces, foldInline))
		f.open = make([]openEntry, max(spec.pieces, foldInline))
	}
	f.runs, f.open = f.runs[:spec.pieces], f.open[:spec.pieces]
	f.foldSpec = spec
	return f
}

// release frees f's runs (the accumulators, for the collector), entries
// and functions, and keeps f in w's scratch cell for w's next Fold. Called
// once every piece has finished (For returned): nobody reads them. A Fold
// whose piece panicked is not released: its folder goes to the collector.
func (f *folder[S]) release(w *runtime.Worker) {
	for i := range int(f.claimed.Load()) {
		f.open[i].owner.Store(0)
		f.open[i].run = openRun{}
	}
	f.claimed.Store(0)
	clear(f.runs)
	f.foldSpec = foldSpec[S]{}
	if w != nil {
		*w.Scratch() = f
	}
}

// takeScratch empties w's scratch cell and returns what it held.
func takeScratch(w *runtime.Worker) any {
	if w == nil {
		return nil
	}
	cell := w.Scratch()
	v := *cell
	*cell = nil
	return v
}

// foldInline is the most runs whose accumulators merge in order, without
// a Reduce: for so few, a fork's cost and a Reduce's allocations outweigh
// what merging in parallel saves. A new folder has room for as many
// pieces at least.
const foldInline = 8

// openEntry is a worker's entry in a Fold: owner is the worker's index
// plus one once claimed (0: free), written once, by the claimer, and read
// by every worker looking for its own entry.
type openEntry struct {
	owner atomic.Int32
	run   openRun
}

type foldRun[S any] struct {
	acc   S
	began bool
}

// openRun is a worker's last run of a Fold: it may go on with piece next,
// into runs[first]. next is set only once body has returned from the
// run's last piece, so no body holds the run's accumulator while next
// names a piece, even when the worker runs pieces of this Fold while a
// body waits for a fork (piece next cannot be the one waiting: that one
// either began a run of its own or is next itself, and runs once).
type openRun struct {
	next, first int
}

// run folds every piece and merges the runs, on a worker.
func (f *folder[S]) run() S {
	// One piece per chunk: the bulk spawn hands a worker consecutive
	// pieces, in order, which is what lets runs grow.
	For(0, f.pieces, 1, f.foldFn)
	began := 0
	for k := range f.runs {
		if f.runs[k].began {
			began++
		}
	}
	if began == 1 { // nobody stole: piece 0's run folded everything
		return f.runs[0].acc
	}
	if began <= foldInline {
		acc := f.runs[0].acc // piece 0 always begins a run
		for k := 1; k < f.pieces; k++ {
			if f.runs[k].began {
				acc = f.merge(acc, f.runs[k].acc)
			}
		}
		return acc
	}
	accs := make([]S, 0, began)
	for k := range f.runs {
		if f.runs[k].began {
			accs = append(accs, f.runs[k].acc)
		}
	}
	var none S // accs is never empty: piece 0 always begins a run
	return Reduce(accs, none, f.merge)
}

// fold folds pieces [pl, ph).
func (f *folder[S]) fold(pl, ph int) {
	o := f.openOf(runtime.CurrentWorker().Index())
	defer stopOnPanic(&f.stop)
	for k := pl; k < ph; k++ {
		if f.stop.Load() {
			return
		}
		f.piece(o, k)
	}
}

// openOf returns the open run of the worker with index index, claiming an
// entry for it the first time it folds a piece. Entries are claimed in
// order and never freed, and a worker claims one only when about to fold
// a piece, so the pieces bound the claims. Only the worker itself claims
// its entry, so it finds none of its own among those claimed when it
// first comes; an entry claimed by another but not yet marked (owner
// still 0) is not its own either.
func (f *folder[S]) openOf(index int) *openRun {
	me := int32(index) + 1
	n := int(f.claimed.Load())
	for i := range n {
		if f.open[i].owner.Load() == me {
			return &f.open[i].run
		}
	}
	e := &f.open[f.claimed.Add(1)-1]
	e.run.next = -1
	e.owner.Store(me)
	return &e.run
}

// piece folds piece k, going on with the worker's open run if it ends
// right before k.
func (f *folder[S]) piece(o *openRun, k int) {
	first := k
	if o.next == k {
		first = o.first
	} else {
		f.runs[k] = foldRun[S]{acc: f.init(), began: true}
	}
	l, h := f.start(k), f.start(k+1)
	f.runs[first].acc = f.body(f.runs[first].acc, f.lo+int(l), f.lo+int(h))
	o.next, o.first = k+1, first
}
