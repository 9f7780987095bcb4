package runtime

import "github.com/spindle-go/spindle/deque"

// Research holds the settings that exist to compare the engine with other
// designs: other deques (eager publication is a Chase-Lev variant:
// internal/experiment's DequeChaseLevEager), spawned tasks that do not run
// their descendants in place. Programs never need them; package
// internal/experiment builds pool options from them, so pool's API does
// not show them. The zero value is the engine as shipped.
type Research struct {
	// OneTaskPerRun makes a spawned task return to its worker's wait loop
	// when it ends, instead of running its descendants in place
	// (descendants.go).
	OneTaskPerRun bool
	// Deque, if set, makes each worker's public deque with it instead of
	// a deque.ChaseLev, and turns lazy publication off (every job goes to
	// that deque at once, as in Rayon), for comparing deque algorithms
	// inside the runtime. If the deque can steal a fraction of its items
	// at once (deque.Bulk's StealFraction), thieves take half of a
	// victim's jobs, up to 64, per steal.
	Deque func() deque.Deque[Job]
}

// apply sets worker w up for the settings; the analysis worker's variant
// deque (its registry's alone) times strands (analyze.go).
func (rs *Research) apply(w *Worker) {
	w.oneTaskPerRun = rs.OneTaskPerRun || rs.Deque != nil
	if rs.Deque == nil {
		return
	}
	w.variant = rs.Deque()
	if d, ok := w.variant.(*analysisDeque); ok {
		d.w, w.analysing = w, true
	}
	if _, ok := w.variant.(halfStealer); ok {
		w.stealBuf = make([]*Job, stealHalfMax)
	}
}
