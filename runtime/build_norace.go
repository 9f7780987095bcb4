//go:build !race

package runtime

// raceEnabled is false outside the race detector: the perturbation
// branches are constant-false and compiled away (the inliner does not
// count them, so the fast paths stay inlinable).
const raceEnabled = false
