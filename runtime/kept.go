package runtime

import "sync"

// kept lists the registries a process keeps for good: the analysis
// worker's (AnalysisRegistry) and the default pool's (package pool), which
// nothing closes while the process runs.
var kept struct {
	mu   sync.Mutex
	regs []*Registry
}

// KeepForGood records r as a registry the process keeps for its whole
// life, for CloseKept.
func KeepForGood(r *Registry) {
	kept.mu.Lock()
	defer kept.mu.Unlock()
	kept.regs = append(kept.regs, r)
}

// CloseKept closes every registry kept for good and forgets them, and
// returns the first error. It is for the end of a test binary, whose leak
// check must then find no goroutine of any registry: nothing may use a
// kept registry afterwards.
func CloseKept() error {
	kept.mu.Lock()
	regs := kept.regs
	kept.regs = nil
	kept.mu.Unlock()
	var first error
	for _, r := range regs {
		if err := r.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}
