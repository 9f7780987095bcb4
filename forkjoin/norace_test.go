//go:build !race

package forkjoin_test

// raceEnabled reports whether the race detector is on; tests scale down under it.
const raceEnabled = false
