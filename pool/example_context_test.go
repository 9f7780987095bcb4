package pool_test

import (
	"context"
	"fmt"

	"github.com/spindle-go/spindle/pool"
)

// exLookup stands for a call that takes a context, such as a request to
// a server: it reports whether node n is the one named name, and gives
// up once ctx is done.
func exLookup(ctx context.Context, n *exNode, name string) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	return n.name == name, nil
}

func ExamplePool_ScopeContext() {
	p := exPool(2)
	defer p.Close()
	// Search a tree for a name, a task per node. The task that finds it
	// cancels the scope's context with the answer as the cause: from then
	// on no task of the scope starts (the tasks queued are skipped, and so
	// are the children the finder spawns next), and ScopeContext returns
	// the cause once the tasks under way have finished.
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	var search func(s *pool.Scope, n *exNode)
	search = func(s *pool.Scope, n *exNode) {
		// Tasks hand the scope's context to the calls they make.
		if found, _ := exLookup(s.Context(), n, "etc"); found {
			cancel(fmt.Errorf("found /%s, %d entries", n.name, len(n.children)))
		}
		for _, c := range n.children {
			s.Spawn(func(s *pool.Scope) { search(s, c) })
		}
	}
	err := p.ScopeContext(ctx, func(s *pool.Scope) { search(s, exTree()) })
	fmt.Println(err)

	// With a context already done, the body does not run at all.
	err = p.ScopeContext(ctx, func(*pool.Scope) { fmt.Println("not printed") })
	fmt.Println(err)
	// Output:
	// found /etc, 2 entries
	// found /etc, 2 entries
}

func ExamplePool_RunContext() {
	p := exPool(2)
	defer p.Close()
	ctx, cancel := context.WithCancel(context.Background())
	err := p.RunContext(ctx, func() { fmt.Println("ran") })
	fmt.Println(err)

	// A request whose client went away starts no work.
	cancel()
	err = p.RunContext(ctx, func() { fmt.Println("not printed") })
	fmt.Println(err)
	// Output:
	// ran
	// <nil>
	// context canceled
}

func ExampleScope_Context() {
	p := exPool(2)
	defer p.Close()
	type requestID struct{}
	ctx := context.WithValue(context.Background(), requestID{}, "r-42")
	_ = p.ScopeContext(ctx, func(s *pool.Scope) {
		s.Spawn(func(s *pool.Scope) { fmt.Println("task of", s.Context().Value(requestID{})) })
	})
	// A plain Scope's context is context.Background(): nothing cancels it.
	p.Scope(func(s *pool.Scope) { fmt.Println(s.Context() == context.Background()) })
	// Output:
	// task of r-42
	// true
}
