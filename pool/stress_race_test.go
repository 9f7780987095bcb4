//go:build race

package pool_test

// stressRace reports whether the race detector is on: the stress tests
// scale their budgets and depths down under it (it makes the pool about ten
// times slower and its goroutine stacks larger).
const stressRace = true
