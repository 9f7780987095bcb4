package deque_test

import (
	"fmt"

	"github.com/spindle-go/spindle/deque"
)

// The owner pushes and pops at the bottom (last in, first out); thieves
// steal from the top (first in, first out).
func ExampleChaseLev() {
	d := deque.NewChaseLev[string](8)
	for _, s := range []string{"a", "b", "c"} {
		d.Push(&s)
	}
	stolen, res := d.Steal()
	fmt.Println(*stolen, res)
	fmt.Println(*d.Pop(), d.Len())
	// Output:
	// a Success
	// c 1
}

// Every variant meets the Deque interface; bounded ones report full.
func ExampleDeque() {
	deques := map[string]deque.Deque[int]{
		"chaselev": deque.NewChaseLev[int](2),
		"abp":      deque.NewABP[int](2),
		"bwos":     deque.NewBWoS[int](2, 1),
		"locked":   deque.NewLocked[int](2),
		"bulk":     deque.NewBulk[int](2),
	}
	for _, name := range []string{"chaselev", "abp", "bwos", "locked", "bulk"} {
		d := deques[name]
		pushed := 0
		for i := range 3 {
			if d.TryPush(&i) {
				pushed++
			}
		}
		fmt.Println(name, "took", pushed, "of 3")
	}
	// Output:
	// chaselev took 3 of 3
	// abp took 2 of 3
	// bwos took 2 of 3
	// locked took 3 of 3
	// bulk took 3 of 3
}

// Bulk moves many items with one atomic operation.
func ExampleBulk() {
	d := deque.NewBulk[int](4)
	items := make([]*int, 10)
	for i := range items {
		items[i] = new(int)
		*items[i] = i
	}
	d.PushBatch(items)
	dst := make([]*int, 3)
	n, _ := d.StealBatch(dst)
	for _, p := range dst[:n] {
		fmt.Print(*p, " ")
	}
	half := make([]*int, 10)
	n, _ = d.StealFraction(0.5, half)
	fmt.Println("then half of the rest:", n, "left:", d.Len())
	// Output: 0 1 2 then half of the rest: 4 left: 3
}
