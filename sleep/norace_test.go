//go:build !race

package sleep

// raceEnabled reports whether the race detector is on; the stress tests
// scale down under it.
const raceEnabled = false
