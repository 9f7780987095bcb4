package pool

import (
	"context"
	"fmt"

	"github.com/spindle-go/spindle/runtime"
)

// CloseContext is Close with a deadline: it begins closing p as Close
// does and returns once p has closed (Close's result), or once ctx is
// done, whichever comes first. If ctx comes first it returns an error
// that wraps context.Cause(ctx) (errors.Is(err,
// context.DeadlineExceeded) after a deadline), and p goes on closing
// meanwhile: it accepts no call from outside, runs every task handed to
// it before, and then stops its workers; a later Close or CloseContext
// waits for that. So nothing handed to p is dropped, as with Close: a
// deadline bounds the wait, not the work (a task that never returns
// keeps p, and the goroutine that finishes the close, alive, as it keeps
// Close waiting). On p's own workers it returns ErrCloseFromWorker and on
// the default pool ErrCloseDefault, at once, as Close does; on a worker
// of another pool it serves that pool while it waits, as Close does. A
// nil ctx panics.
func (p *Pool) CloseContext(ctx context.Context) error {
	p.mustBeMade("pool.Pool.CloseContext")
	if ctx == nil {
		panic("pool.Pool.CloseContext: nil Context")
	}
	if w := runtime.CurrentWorker(); w != nil && w.Registry() == p.reg {
		return ErrCloseFromWorker
	}
	if isDefault(p) {
		return ErrCloseDefault
	}
	closed := make(chan error, 1)
	go func() { closed <- p.Close() }()
	var err error
	Block(func() { // serves the caller's pool, if it is a worker of another
		select {
		case err = <-closed:
		case <-ctx.Done():
			select {
			case err = <-closed: // closed as well: Close's result wins
			default:
				err = fmt.Errorf("pool.Pool.CloseContext: the pool is still closing: %w", context.Cause(ctx))
			}
		}
	})
	return err
}
