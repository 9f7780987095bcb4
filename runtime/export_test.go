package runtime

// The tests of package runtime_test (dequekinds_test.go) use experiment's
// deque kinds, which the tests of package runtime cannot import (experiment
// imports pool, which imports runtime); these are the helpers they share.
var (
	NewTestRegistry = newRegistry
	Watchdog        = watchdog
)
