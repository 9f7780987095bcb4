package forkjoin_test

import (
	"cmp"
	"fmt"
	"iter"
	"math"
	"strings"
	"sync/atomic"

	"github.com/spindle-go/spindle/forkjoin"
)

func ExampleFind() {
	// The first reading above 90, among a million: parts of the slice
	// above a match already found are not examined.
	readings := make([]int, 1_000_000)
	for i := range readings {
		readings[i] = i % 90
	}
	readings[700_000] = 95
	readings[300_000] = 91
	i, ok := forkjoin.Find(readings, func(r int) bool { return r > 90 })
	fmt.Println(i, ok)
	_, ok = forkjoin.Find(readings, func(r int) bool { return r < 0 })
	fmt.Println(ok)
	// Output:
	// 300000 true
	// false
}

func ExampleAny() {
	words := strings.Fields("the quick brown fox jumps over the lazy dog")
	fmt.Println(forkjoin.Any(words, func(w string) bool { return len(w) == 5 }))
	fmt.Println(forkjoin.Any(words, func(w string) bool { return len(w) > 5 }))
	// Output:
	// true
	// false
}

func ExampleAll() {
	words := strings.Fields("the quick brown fox jumps over the lazy dog")
	fmt.Println(forkjoin.All(words, func(w string) bool { return w == strings.ToLower(w) }))
	fmt.Println(forkjoin.All(words, func(w string) bool { return len(w) > 3 }))
	fmt.Println(forkjoin.All([]string{}, func(w string) bool { return false }))
	// Output:
	// true
	// false
	// true
}

func ExampleCount() {
	n := make([]int, 1_000_000)
	for i := range n {
		n[i] = i
	}
	fmt.Println(forkjoin.Count(n, func(x int) bool { return x%3 == 0 }))
	// Output: 333334
}

func ExampleFilter() {
	n := make([]int, 100)
	for i := range n {
		n[i] = i
	}
	squares := forkjoin.Filter(n, func(x int) bool {
		for r := 0; r*r <= x; r++ {
			if r*r == x {
				return true
			}
		}
		return false
	})
	fmt.Println(squares)
	// Output: [0 1 4 9 16 25 36 49 64 81]
}

type city struct {
	name string
	pop  int // thousands
}

var cities = []city{
	{"Lyon", 520}, {"Nice", 340}, {"Metz", 120}, {"Brest", 140},
	{"Dijon", 160}, {"Tours", 140}, {"Reims", 180}, {"Nancy", 100},
	{"Pau", 75}, {"Laval", 50}, {"Vichy", 25}, {"Agen", 33},
	{"Rodez", 25}, {"Albi", 50}, {"Sète", 44}, {"Paris", 2100},
}

func byPop(a, b city) int { return cmp.Compare(a.pop, b.pop) }

func ExampleMinFunc() {
	// Vichy and Rodez tie: the first of them is returned, as by
	// slices.MinFunc.
	fmt.Println(forkjoin.MinFunc(cities, byPop).name)
	// Output: Vichy
}

func ExampleMaxFunc() {
	fmt.Println(forkjoin.MaxFunc(cities, byPop).name)
	// Ties at the top: the first maximum is returned, as by slices.MaxFunc.
	fmt.Println(forkjoin.MaxFunc(cities, func(a, b city) int { return cmp.Compare(len(a.name), len(b.name)) }).name)
	// Output:
	// Paris
	// Brest
}

func ExampleSortStableFunc() {
	s := append([]city(nil), cities...)
	// Cities of the same size keep their order: Brest before Tours,
	// Laval before Albi, Vichy before Rodez.
	forkjoin.SortStableFunc(s, byPop)
	names := make([]string, len(s))
	for i, c := range s {
		names[i] = c.name
	}
	fmt.Println(strings.Join(names, " "))
	// Output: Vichy Rodez Agen Sète Laval Albi Pau Nancy Metz Brest Tours Dijon Reims Nice Lyon Paris
}

func ExampleScan() {
	deposits := []int{100, -20, 35, -50, 10, 0, 75}
	fmt.Println(forkjoin.Scan(deposits, func(a, b int) int { return a + b }))
	// op need only be associative: the operands keep their order.
	fmt.Println(forkjoin.Scan([]string{"a", "b", "c", "d"}, func(a, b string) string { return a + b }))
	// Output:
	// [100 80 115 65 75 75 150]
	// [a ab abc abcd]
}

// collatz yields the Collatz sequence from n down to 1.
func collatz(n int) iter.Seq[int] {
	return func(yield func(int) bool) {
		for {
			if !yield(n) || n == 1 {
				return
			}
			if n%2 == 0 {
				n /= 2
			} else {
				n = 3*n + 1
			}
		}
	}
}

func ExampleForSeq() {
	// The iterator is pulled on one goroutine; the calls run in parallel.
	var sum, steps atomic.Int64
	forkjoin.ForSeq(collatz(27), func(x int) {
		sum.Add(int64(x))
		steps.Add(1)
	})
	fmt.Println(steps.Load(), sum.Load())
	// Output: 112 101440
}

func ExampleMin() {
	// Min and Max give what slices.Min and slices.Max give, a NaN
	// included, scanning chunks of a large slice in parallel.
	fmt.Println(forkjoin.Min([]float64{3, 1, 2}), forkjoin.Max([]float64{3, math.NaN(), 2}))
	// Output: 1 NaN
}

func ExampleIndex() {
	names := []string{"ada", "grace", "barbara"}
	fmt.Println(forkjoin.Index(names, "grace"), forkjoin.Contains(names, "alan"))
	// Output: 1 false
}

func ExampleEqual() {
	a, b := []int{1, 2, 3}, []int{1, 2, 3}
	fmt.Println(forkjoin.Equal(a, b), forkjoin.Equal(a, b[:2]))
	// Output: true false
}

func ExampleIsSorted() {
	fmt.Println(forkjoin.IsSorted([]int{1, 2, 2, 5}), forkjoin.IsSorted([]int{2, 1}))
	// Output: true false
}

func ExampleIsSortedFunc() {
	byLen := func(a, b string) int { return cmp.Compare(len(a), len(b)) }
	fmt.Println(forkjoin.IsSortedFunc([]string{"a", "bb", "ccc"}, byLen))
	// Output: true
}
