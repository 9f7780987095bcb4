package pool_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/spindle-go/spindle/pool"
)

func ExampleSubmitContext() {
	// One worker, busy with a long job; a report is queued behind it.
	p, _ := pool.New(pool.WithWorkers(1), pool.WithGuests(0), pool.WithSpares(0))
	defer p.Close()
	started, release := make(chan struct{}), make(chan struct{})
	long := pool.Submit(p, func() string {
		close(started)
		<-release
		return "long job done"
	})
	<-started

	ctx, cancel := context.WithCancelCause(context.Background())
	report := pool.SubmitContext(ctx, p, func() string { return "report" })
	// The client goes away: the report, not started yet, is cancelled and
	// its future done at once, while the worker is still busy. Its function
	// never runs; Wait returns the zero value and Err the cause.
	cancel(errors.New("client went away"))
	<-report.Done()
	fmt.Printf("%q, %v\n", report.Wait(), report.Err())

	close(release)
	// A task that started is not interrupted: its Err is nil.
	fmt.Printf("%q, %v\n", long.Wait(), long.Err())
	// Output:
	// "", client went away
	// "long job done", <nil>
}
