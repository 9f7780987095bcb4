//go:build !race

package testutil

// RaceEnabled reports whether the race detector is on; tests scale their
// sizes down under it.
const RaceEnabled = false
