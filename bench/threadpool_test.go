package bench

import (
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// withinAMinute fails the test if body has not returned after a minute: a
// deadlock becomes a failure instead of a hang until go test's timeout.
func withinAMinute(t *testing.T, body func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		body()
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("still running after a minute (deadlock?)")
	}
}

func TestFutureKernels(t *testing.T) {
	for _, workers := range []int{1, 2, 3} {
		tp := NewThreadPool(workers)
		p := newPool(t, workers)
		withinAMinute(t, func() {
			for _, n := range []int{0, 1, 2, 15} {
				want := FibExpected(n)
				var got int64
				tp.Run(func() { got = FibThreadPool(tp, n) }) // nested waits on every worker
				if got != want {
					t.Errorf("workers=%d: FibThreadPool(%d) = %d, want %d", workers, n, got, want)
				}
				p.Run(func() { got = FibSubmit(p, n) })
				if got != want {
					t.Errorf("workers=%d: FibSubmit(%d) = %d, want %d", workers, n, got, want)
				}
			}
			for _, n := range []int{0, 2, 33, 3000} {
				for name, sort := range map[string]func([]int64){
					"threadpool": func(s []int64) { tp.Run(func() { QuicksortThreadPool(tp, s, MinCutoff) }) },
					"submit":     func(s []int64) { p.Run(func() { QuicksortSubmit(p, s, MinCutoff) }) },
				} {
					s := make([]int64, n)
					sum := Fill(s)
					want := slices.Sorted(slices.Values(s))
					sort(s)
					if err := Check(s, sum); err != nil || !slices.Equal(s, want) {
						t.Fatalf("workers=%d: %s of %d: not sorted (%v)", workers, name, n, err)
					}
				}
			}
		})
		tp.Close()
	}
}

func TestThreadPoolFutures(t *testing.T) {
	tp := NewThreadPool(2)
	withinAMinute(t, func() {
		// Waited for from outside, in reverse order, by several goroutines.
		futs := make([]*Future[int], 200)
		for i := range futs {
			futs[i] = Submit(tp, func() int { return i * 3 })
		}
		var wg sync.WaitGroup
		for range 3 {
			wg.Go(func() {
				for i := len(futs) - 1; i >= 0; i-- {
					if got := futs[i].Wait(); got != i*3 {
						t.Errorf("future %d = %d, want %d", i, got, i*3)
					}
				}
			})
		}
		wg.Wait()

		// A waiter whose task runs elsewhere sleeps until it is done.
		gate := make(chan struct{})
		slow := Submit(tp, func() string { <-gate; return "slow" })
		var got string
		tp.Run(func() {
			time.AfterFunc(time.Millisecond, func() { close(gate) })
			got = slow.Wait()
		})
		if got != "slow" {
			t.Errorf("got %q, want slow", got)
		}

		// Panics reach Wait and Run.
		boom := Submit(tp, func() int { panic("boom") })
		if v := panicValue(func() { boom.Wait() }); v != "boom" {
			t.Errorf("Wait re-panicked with %v, want boom", v)
		}
		if v := panicValue(func() { tp.Run(func() { panic("run") }) }); v != "run" {
			t.Errorf("Run re-panicked with %v, want run", v)
		}
	})

	// Close runs what is queued, then Submit panics.
	var ran atomic.Int64
	for range 100 {
		Submit(tp, func() int { ran.Add(1); return 0 })
	}
	tp.Close()
	if ran.Load() != 100 {
		t.Errorf("Close left %d of 100 tasks unrun", 100-ran.Load())
	}
	if v := panicValue(func() { Submit(tp, func() int { return 0 }) }); v != ErrThreadPoolClosed {
		t.Errorf("Submit after Close panicked with %v, want ErrThreadPoolClosed", v)
	}
}

func panicValue(f func()) (v any) {
	defer func() { v = recover() }()
	f()
	return nil
}
