package pool_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spindle-go/spindle/pool"
)

func ExampleGroup() {
	// The zero value needs no constructor: it runs its tasks on
	// pool.Current() (Default() here) and, having no context, runs every
	// one of them even after an error. Wait returns the first error.
	var g pool.Group
	var ran atomic.Int32
	for i := range 5 {
		g.Go(func() error {
			ran.Add(1)
			if i == 3 {
				return fmt.Errorf("task %d failed", i)
			}
			return nil
		})
	}
	err := g.Wait()
	fmt.Println(err, "-", ran.Load(), "tasks ran")
	// Output: task 3 failed - 5 tasks ran
}

func ExampleNewGroup() {
	// The first error cancels the group's context, with that error as its
	// cause: tasks that have not started are skipped, running ones can stop.
	errNotFound := errors.New("user not found")
	g, ctx := pool.NewGroup(context.Background())
	g.Go(func() error {
		// A slow task waits for the others to give up. It waits for
		// another task of the pool, so it waits inside pool.Block.
		pool.Block(func() { <-ctx.Done() })
		return ctx.Err()
	})
	g.Go(func() error { return errNotFound })
	fmt.Println(g.Wait())
	fmt.Println(ctx.Err())
	fmt.Println(context.Cause(ctx))
	// Output:
	// user not found
	// context canceled
	// user not found
}

func ExamplePool_NewGroup() {
	p := exPool(2)
	defer p.Close()
	// The group's tasks run on p, whoever calls Go; inside them Join,
	// Spawn, forkjoin and the groups of NewGroup use p too.
	g, _ := p.NewGroup(context.Background())
	totals := make([]int, 2) // each task writes its own element
	for i, n := range []int{1000, 1_000_000} {
		g.Go(func() error {
			if pool.Current() != p {
				return errors.New("not on p")
			}
			totals[i] = exSum(exOneToN(n))
			return nil
		})
	}
	err := g.Wait()
	fmt.Println(err, totals)
	// Output: <nil> [500500 500000500000]
}

func ExampleGroup_Go() {
	// Tasks may call Go on their own group, at any depth: the walk queues
	// a task per node, and Wait waits for all of them. Here it counts the
	// letters of every name in the tree.
	var g pool.Group
	var letters atomic.Int64
	var walk func(n *exNode) error
	walk = func(n *exNode) error {
		letters.Add(int64(len(n.name)))
		for _, c := range n.children {
			g.Go(func() error { return walk(c) })
		}
		return nil
	}
	g.Go(func() error { return walk(exTree()) })
	err := g.Wait()
	fmt.Println(err, letters.Load())
	// Output: <nil> 20
}

func ExampleGroup_Wait() {
	// Wait returns once every task has finished: what they wrote is then
	// safe to read without a lock.
	var g pool.Group
	squares := make([]int, 5)
	for i := range squares {
		g.Go(func() error { squares[i] = i * i; return nil })
	}
	fmt.Println(g.Wait(), squares)

	// Once the parent context is done, a group starts no more tasks, and
	// Wait returns the parent's cause if it skipped any.
	parent, cancel := context.WithCancelCause(context.Background())
	cancel(errors.New("shutting down"))
	h, _ := pool.NewGroup(parent)
	var ran atomic.Int32
	h.Go(func() error { ran.Add(1); return nil })
	fmt.Println(h.Wait(), "-", ran.Load(), "tasks ran")
	// Output:
	// <nil> [0 1 4 9 16]
	// shutting down - 0 tasks ran
}

func ExampleGroup_SetLimit() {
	// At most 2 tasks of the group are queued or running at once. Go waits
	// for a free slot: here, off the pool, it blocks; on a worker it would
	// run other tasks meanwhile.
	var g pool.Group
	g.SetLimit(2)
	var mu sync.Mutex
	active, most := 0, 0
	for range 10 {
		g.Go(func() error {
			mu.Lock()
			active++
			most = max(most, active)
			mu.Unlock()
			time.Sleep(100 * time.Microsecond) // some work
			mu.Lock()
			active--
			mu.Unlock()
			return nil
		})
	}
	err := g.Wait()
	fmt.Println(err, most <= 2)
	// Output: <nil> true
}

func ExampleGroup_SetAllErrors() {
	// Validate every record and report every failure, not the first: a
	// zero Group has no context, so no task is skipped.
	var g pool.Group
	g.SetAllErrors(true)
	records := []string{"ok", "", "ok", "bad"}
	for i, r := range records {
		g.Go(func() error {
			switch r {
			case "":
				return fmt.Errorf("record %d: empty", i)
			case "bad":
				return fmt.Errorf("record %d: malformed", i)
			}
			return nil
		})
	}
	err := g.Wait()
	lines := strings.Split(err.Error(), "\n") // errors.Join puts one per line
	slices.Sort(lines)                        // in the order the tasks failed
	fmt.Println(strings.Join(lines, "; "))
	// Output: record 1: empty; record 3: malformed
}

func ExampleGroup_TryGo() {
	// TryGo queues a task only if the group has a free slot, and never
	// waits. Under a limit, a task that finds more work should use it:
	// with every slot held by a task waiting in Go for a slot, none would
	// ever free up. When TryGo says no, the caller does the work itself.
	var g pool.Group
	g.SetLimit(1)
	release := make(chan struct{})
	g.Go(func() error { pool.Block(func() { <-release }); return nil })
	report := func() error { fmt.Println("report written"); return nil }
	if !g.TryGo(report) { // the only slot is taken
		fmt.Println("group full: writing the report here")
		_ = report()
	}
	close(release)
	fmt.Println(g.Wait())
	fmt.Println(g.TryGo(func() error { return nil })) // the slot is free again
	fmt.Println(g.Wait())
	// Output:
	// group full: writing the report here
	// report written
	// <nil>
	// true
	// <nil>
}
