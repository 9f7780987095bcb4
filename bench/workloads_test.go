package bench

import (
	"math"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/spindle-go/spindle/pool"
)

// The tests are kept small: the CI runs them under the race detector.

func newPool(t testing.TB, workers int) *pool.Pool {
	t.Helper()
	p, err := pool.New(pool.WithWorkers(workers))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := p.Close(); err != nil {
			t.Error(err)
		}
	})
	return p
}

func TestFibKernels(t *testing.T) {
	const n = 15
	want := FibExpected(n)
	if want != 610 {
		t.Fatalf("FibExpected(%d) = %d, want 610", n, want)
	}
	if got := FibForks(4); got != 4 {
		t.Errorf("FibForks(4) = %d, want 4", got)
	}
	p := newPool(t, 2)
	kernels := []struct {
		name   string
		fib    func(int) int64
		onPool bool
	}{
		{"serial", FibSerial, false},
		{"closure-floor", FibClosureFloor, false},
		{"closure-floor4", func(n int) int64 { return FibClosureFloorP(n, 4) }, false},
		{"call", FibCall, true},
		{"join", FibJoin, true},
		{"waitgroup", FibWaitGroup, false},
		{"errgroup", FibErrgroup, false},
		{"conc", FibConc, false},
	}
	for _, k := range kernels {
		for _, m := range []int{0, 1, 2, n} {
			var got int64
			if k.onPool {
				p.Run(func() { got = k.fib(m) })
			} else {
				got = k.fib(m)
			}
			if want := FibExpected(m); got != want {
				t.Errorf("%s(%d) = %d, want %d", k.name, m, got, want)
			}
		}
	}
}

func TestQuicksortKernels(t *testing.T) {
	p := newPool(t, 2)
	kernels := []struct {
		name   string
		sort   func([]int64, int)
		onPool bool
	}{
		{"serial", QuicksortSerial, false},
		{"do", QuicksortDo, true},
		{"join", QuicksortJoin, true},
		{"waitgroup", QuicksortWaitGroup, false},
		{"errgroup", QuicksortErrgroup, false},
		{"conc", QuicksortConc, false},
	}
	for _, k := range kernels {
		for _, n := range []int{0, 1, 2, 3, 31, 32, 33, 2000} {
			for _, cutoff := range []int{MinCutoff, DefaultCutoff} {
				s := make([]int64, n)
				sum := Fill(s)
				want := slices.Sorted(slices.Values(s))
				if k.onPool {
					p.Run(func() { k.sort(s, cutoff) })
				} else {
					k.sort(s, cutoff)
				}
				if err := Check(s, sum); err != nil {
					t.Fatalf("%s n=%d cutoff=%d: %v", k.name, n, cutoff, err)
				}
				if !slices.Equal(s, want) {
					t.Fatalf("%s n=%d cutoff=%d: result differs from slices.Sort", k.name, n, cutoff)
				}
			}
		}
	}
}

func TestQuicksortSpecialInputs(t *testing.T) {
	p := newPool(t, 2)
	ascending := make([]int64, 1000)
	for i := range ascending {
		ascending[i] = int64(i)
	}
	descending := slices.Clone(ascending)
	slices.Reverse(descending)
	inputs := map[string][]int64{
		"zeros":      make([]int64, 1000),
		"few values": slices.Repeat([]int64{3, 1, 2, 3, 3}, 200),
		"ascending":  ascending,
		"descending": descending,
		"extremes":   slices.Repeat([]int64{math.MaxInt64, math.MinInt64, 0, -1}, 50),
	}
	for name, in := range inputs {
		want := slices.Sorted(slices.Values(in))
		for _, k := range []struct {
			name string
			sort func([]int64)
		}{
			{"serial", func(s []int64) { QuicksortSerial(s, MinCutoff) }},
			{"do", func(s []int64) { p.Run(func() { QuicksortDo(s, MinCutoff) }) }},
		} {
			s := slices.Clone(in)
			k.sort(s)
			if !slices.Equal(s, want) {
				t.Errorf("%s of %s: not sorted correctly", k.name, name)
			}
		}
	}
}

func TestCheck(t *testing.T) {
	s := []int64{1, 2, 3}
	if err := Check(s, 6); err != nil {
		t.Errorf("Check(sorted) = %v", err)
	}
	if err := Check([]int64{1, 3, 2}, 6); err == nil {
		t.Error("Check did not see the disorder")
	}
	if err := Check([]int64{1, 2, 2}, 6); err == nil {
		t.Error("Check did not see the changed sum")
	}
	// The sum wraps around, as the peers' does.
	big := []int64{math.MaxInt64, math.MaxInt64}
	if err := Check(big, Sum(big)); err != nil || Sum(big) != -2 {
		t.Errorf("wrapping sum: Sum = %d, Check = %v", Sum(big), err)
	}
}

func TestFillMatchesXorshift(t *testing.T) {
	s := make([]int64, 3)
	sum := Fill(s)
	x := Seed
	var want int64
	for i := range s {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		if s[i] != int64(x) {
			t.Fatalf("Fill: s[%d] = %d, want %d", i, s[i], int64(x))
		}
		want += int64(x)
	}
	if sum != want {
		t.Errorf("Fill returned sum %d, want %d", sum, want)
	}
}

func TestTiming(t *testing.T) {
	calls := 0
	d, err := Time(1, 3, nil, func() { calls++ }, nil)
	if err != nil || len(d) != 3 || calls != 4 {
		t.Errorf("Time(1, 3): %d times, %d calls, err %v; want 3, 4, nil", len(d), calls, err)
	}
	ds := []time.Duration{5, 1, 4, 2}
	if m := Median(ds); m != 3 {
		t.Errorf("Median = %v, want 3", m)
	}
	if b := Best(ds); b != 1 {
		t.Errorf("Best = %v, want 1", b)
	}
	if Machine() == "" || runtime.NumCPU() < 1 {
		t.Error("Machine is empty")
	}
}
