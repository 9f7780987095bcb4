//go:build !linux

package sleep

import "time"

func gettid() int { return 0 }

// threadAsleep cannot look at thread states here; give the thread time to
// get into the kernel.
func threadAsleep(int) bool {
	time.Sleep(200 * time.Microsecond)
	return true
}
