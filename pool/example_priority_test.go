package pool_test

import (
	"fmt"
	"log"
	"sync/atomic"

	"github.com/spindle-go/spindle/pool"
)

// A worker starts queued tasks of the highest level first. With one
// worker the order is fixed: the body spawns everything, then the worker
// takes the urgent task, the high one, and the level-0 tasks last (newest
// first, as a worker takes its own work).
func ExampleScope_SpawnPriority() {
	// One worker and no guests: the scope runs on the worker alone, so
	// the order is the policy's, not a race with a caller.
	p, err := pool.New(pool.WithWorkers(1), pool.WithGuests(0))
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close()
	p.Scope(func(s *pool.Scope) {
		say := func(msg string) func(*pool.Scope) { return func(*pool.Scope) { fmt.Println(msg) } }
		s.SpawnPriority(0, say("routine a"))
		s.SpawnPriority(pool.MaxPriority, say("urgent"))
		s.Spawn(say("routine b")) // Spawn is level 0
		s.SpawnPriority(2, say("high"))
	})
	// Output:
	// urgent
	// high
	// routine b
	// routine a
}

// SpawnMany spawns many tasks with one publication; idle workers take
// about half of what is left at a time.
func ExampleScope_SpawnMany() {
	p, err := pool.New(pool.WithWorkers(2))
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close()
	squares := make([]int, 10)
	p.Scope(func(s *pool.Scope) {
		s.SpawnMany(len(squares), func(_ *pool.Scope, i int) { squares[i] = i * i })
	})
	fmt.Println(squares)
	// Output: [0 1 4 9 16 25 36 49 64 81]
}

// SpawnManyPriority is a bulk spawn at a priority level: here a batch of
// urgent checks runs before the routine task spawned ahead of it.
func ExampleScope_SpawnManyPriority() {
	// One worker and no guests: the scope runs on the worker alone, so
	// the order is the policy's, not a race with a caller.
	p, err := pool.New(pool.WithWorkers(1), pool.WithGuests(0))
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close()
	var checked atomic.Int32
	p.Scope(func(s *pool.Scope) {
		s.Spawn(func(*pool.Scope) { fmt.Println("routine task sees", checked.Load(), "checks done") })
		s.SpawnManyPriority(pool.MaxPriority, 5, func(*pool.Scope, int) { checked.Add(1) })
	})
	// Output: routine task sees 5 checks done
}

// The strict policy guarantees that no task starts while a task of a
// higher level is queued; Stats counts inversions under the others.
func ExampleWithPriorityPolicy() {
	p, err := pool.New(pool.WithWorkers(2), pool.WithPriorityPolicy(pool.PriorityStrict))
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close()
	p.Scope(func(s *pool.Scope) {
		for i := range 100 {
			s.SpawnPriority(i%(pool.MaxPriority+1), func(*pool.Scope) {})
		}
	})
	fmt.Println("inversions:", p.Stats().Inversions)
	// Output: inversions: 0
}

func ExamplePriorityPolicy_String() {
	fmt.Println(pool.PriorityScanAll, pool.PrioritySample, pool.PriorityStrict)
	// Output: scan-all sample strict
}
