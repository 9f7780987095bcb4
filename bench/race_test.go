//go:build race

package bench

// raceEnabled reports whether the race detector is on: tests that search
// the full UTS sample trees (SHA-1 per node) check only one of them then.
const raceEnabled = true
