// Command fib computes fib(n) by double recursion, forking at every level,
// in spindle's two ways: forkjoin.Call, a typed fork that allocates
// nothing, and pool.Join, a fork of two closures.
//
//	go run ./examples/fib [-n 32] [-workers N]
//
// With a fork at every level each fork guards a single add, so the times
// are mostly the cost of the forks. Real code would stop forking below a
// cutoff. For a table against serial code and goroutines on 1 to N
// workers, see ./bench/cmd/fibbench.
package main

import (
	"flag"
	"fmt"
	"log"
	"runtime"
	"time"

	"go.uber.org/automaxprocs/maxprocs"

	"github.com/spindle-go/spindle/forkjoin"
	"github.com/spindle-go/spindle/pool"
)

// fibCall forks with forkjoin.Call, which returns fibCall(n-1) and
// fibCall(n-2), computed possibly in parallel. The function and its second
// argument are copied into a record that the worker reuses, so a fork
// allocates nothing.
func fibCall(n int) int {
	if n < 2 {
		return n
	}
	a, b := forkjoin.Call(fibCall, n-1, n-2)
	return a + b
}

// fibJoin forks with pool.Join, which runs two closures, possibly in
// parallel. The second closure, which another worker may run, and the b it
// writes are allocated on the heap at every fork.
func fibJoin(n int) int {
	if n < 2 {
		return n
	}
	var a, b int
	pool.Join(func() { a = fibJoin(n - 1) }, func() { b = fibJoin(n - 2) })
	return a + b
}

func main() {
	// A program, unlike a library, may set GOMAXPROCS: automaxprocs lowers
	// it to the container's CPU quota, if any, and logs what it did.
	if _, err := maxprocs.Set(maxprocs.Logger(log.Printf)); err != nil {
		log.Print(err)
	}
	n := flag.Int("n", 32, "compute fib(n)")
	workers := flag.Int("workers", runtime.GOMAXPROCS(0), "workers of the pool")
	flag.Parse()

	p, err := pool.New(pool.WithWorkers(*workers))
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close()
	fmt.Printf("a pool of %d workers\n", p.Workers())

	// p.Run runs a function on a worker of p, so the forks inside it go to
	// p. (Called from main, forkjoin.Call would use pool.Default(), and
	// pool.Join would run its first half on main.)
	var r int
	start := time.Now()
	p.Run(func() { r = fibCall(*n) })
	fmt.Printf("forkjoin.Call fib(%d) = %d in %v\n", *n, r, time.Since(start))

	start = time.Now()
	p.Run(func() { r = fibJoin(*n) })
	fmt.Printf("pool.Join     fib(%d) = %d in %v\n", *n, r, time.Since(start))
}
