//go:build race

package deque

// raceEnabled reports whether the race detector is on; tests scale down under it.
const raceEnabled = true
