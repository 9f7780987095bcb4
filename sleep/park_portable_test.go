//go:build !linux || spindle_portable

package sleep

func (p *parker) tokenPending() bool { return len(p.tokens) != 0 }
