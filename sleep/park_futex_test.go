//go:build linux && !spindle_portable

package sleep

func (p *parker) tokenPending() bool { return p.word.Load() != 0 }
