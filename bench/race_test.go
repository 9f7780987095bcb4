package bench

import "github.com/spindle-go/spindle/internal/testutil"

// raceEnabled reports whether the race detector is on; tests scale down
// under it.
const raceEnabled = testutil.RaceEnabled
