//go:build !linux

package sleep

// osYield: without sched_yield through x/sys, spin a little longer.
func osYield() { pause(4 * pauseIterations) }
