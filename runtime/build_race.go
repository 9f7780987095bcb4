//go:build race

package runtime

// raceEnabled is true under the race detector: the fork fast paths then
// fail at random (perturb), so that every race run also exercises the
// slow paths (publication, taking back through runOwn), as Go's own
// scheduler randomizes its choices under -race.
const raceEnabled = true
