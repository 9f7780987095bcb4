package bench

import (
	"fmt"
	"runtime"
	"slices"
	"time"
)

// Time runs prep, run and check, in that order, warmup+reps times and
// returns the wall times of run in the last reps rounds. Only run is timed:
// prep refills an input, for example, and check verifies the result; both
// may be nil. Time stops at the first error of check and returns it.
func Time(warmup, reps int, prep, run func(), check func() error) ([]time.Duration, error) {
	times := make([]time.Duration, 0, reps)
	for i := range warmup + reps {
		if prep != nil {
			prep()
		}
		start := time.Now()
		run()
		d := time.Since(start)
		if i >= warmup {
			times = append(times, d)
		}
		if check != nil {
			if err := check(); err != nil {
				return times, err
			}
		}
	}
	return times, nil
}

// Median returns the median of d (the mean of the middle two for an even
// count), or 0 for none.
func Median[T time.Duration | float64](d []T) T {
	if len(d) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(d))
	m := len(s) / 2
	if len(s)%2 == 0 {
		return (s[m-1] + s[m]) / 2
	}
	return s[m]
}

// Best returns the smallest of d, or 0 for none.
func Best(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	return slices.Min(d)
}

// Ms converts d to milliseconds.
func Ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

// Machine describes where a run happens: CPUs usable by the process (what
// nproc prints), GOMAXPROCS now, and the Go version and platform.
func Machine() string {
	return fmt.Sprintf("nproc=%d GOMAXPROCS=%d %s %s/%s",
		runtime.NumCPU(), runtime.GOMAXPROCS(0), runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
