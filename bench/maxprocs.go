package bench

import (
	"fmt"

	"go.uber.org/automaxprocs/maxprocs"
)

// SizeGOMAXPROCS sizes GOMAXPROCS with go.uber.org/automaxprocs and returns
// what it decided, for the command's header. Only commands call it.
//
// GOMAXPROCS is sized in the commands and nowhere in spindle: a library
// must not change a process-wide setting behind its user's back, a program
// may. automaxprocs lowers GOMAXPROCS to the container's CPU quota, if any,
// and logs its decision, which the commands print so that a reader of a
// table knows how many Ps the goroutine rows had. Since Go 1.25 the
// runtime follows the cgroup quota by itself, and keeps following it as it
// changes; any explicit runtime.GOMAXPROCS call, automaxprocs' included,
// turns those automatic updates off. For a benchmark that runs for seconds
// a value fixed at start is what we want anyway: the table reports one
// number for the whole run. Without a quota, or with $GOMAXPROCS set,
// automaxprocs changes nothing.
func SizeGOMAXPROCS() string {
	var note string
	if _, err := maxprocs.Set(maxprocs.Logger(func(format string, args ...any) {
		note = fmt.Sprintf(format, args...)
	})); err != nil {
		note = "maxprocs: " + err.Error()
	}
	return note
}
