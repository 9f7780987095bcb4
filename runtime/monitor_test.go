package runtime

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// The monitor reads the process's CPU clock, a system call that holds the
// monitor's P meanwhile, only in a round where a spare may start or
// retire: a worker blocked or suspected, or a spare active. A pool that
// computes beside the program's goroutines makes none.
func TestMonitorReadsTheProcessCPUOnlyWhenSparesMayMove(t *testing.T) {
	reads := 0
	saved := readProcessCPU
	t.Cleanup(func() { readProcessCPU = saved })
	readProcessCPU = func() time.Duration { reads++; return 0 }
	r := startSized(t, 2, Config{Workers: 2}) // no monitor goroutine: the test calls its policy
	for _, tc := range []struct {
		name   string
		look   blockedLook
		active int32
		want   int
	}{
		{"nothing blocked", blockedLook{}, 0, 0},
		{"a worker suspected", blockedLook{suspect: true}, 0, 1},
		{"a worker blocked", blockedLook{blocked: 1, watched: 2}, 0, 1},
		{"a spare active", blockedLook{}, 1, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reads = 0
			r.spares.active.Store(tc.active)
			defer r.spares.active.Store(0)
			r.steerSpares(time.Now(), tc.look, 0)
			assert.Equal(t, tc.want, reads)
		})
	}
}
