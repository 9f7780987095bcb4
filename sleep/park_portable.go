//go:build !linux || spindle_portable

package sleep

import (
	"sync/atomic"
	"time"
)

// Backend names the parker implementation compiled in.
const Backend = "channel"

// parker is a binary semaphore on a channel with room for one token: park
// consumes a token, blocking until there is one; unpark provides one. The
// protocol gives at most one token per park, so the send never blocks.
type parker struct {
	tokens chan struct{}
	always bool // unused: a channel park always gives the P back
}

// init makes the token channel; a channel park always gives the P back,
// so the reasons to step aside (Sleep.StepAside) change nothing here.
func (p *parker) init(*atomic.Uint32) { p.tokens = make(chan struct{}, 1) }

func (p *parker) park() { <-p.tokens }

func (p *parker) unpark() { p.tokens <- struct{}{} }

// parkFor is park with a deadline: it reports whether it consumed a token
// (false: d passed first).
func (p *parker) parkFor(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.tokens:
		return true
	case <-t.C:
		return false
	}
}
