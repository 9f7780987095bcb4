package pool_test

import (
	"os"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/spindle-go/spindle/pool"
)

// TestAnalyzeDefaultFirstUsedInside analyses 64 tasks spawned on
// pool.Default().Scope, Default used for the first time inside the
// analysed function. Calls on any pool run in place on the analysis
// worker, so Default must not start the default pool there: its start
// would be timed in the first strand, which is on the span. Default inside
// the analysis must return the analysis worker's pool (as Current does),
// the built-in pool must still be unmade afterwards, and the analysis must
// count the same forks as with Current.
//
// The check is structural: an earlier version compared the two analyses'
// parallelism within 25% and failed on cold CI runs, because a 64-task
// span of about 250 us read in thread CPU time varies by half between two
// runs in one process whatever the order (the first analysis of a process
// was not the slow one).
//
// Other tests of this binary may have started Default, so the check runs
// in a child process of its own, where nothing has.
func TestAnalyzeDefaultFirstUsedInside(t *testing.T) {
	const childEnv = "SPINDLE_ANALYZE_DEFAULT_CHILD"
	spawn64 := func(p func() *pool.Pool, same *bool) func() {
		return func() {
			*same = p() == pool.Current()
			p().Scope(func(s *pool.Scope) {
				for range 64 {
					s.Spawn(func(*pool.Scope) { spin(testStrand) })
				}
			})
		}
	}
	if os.Getenv(childEnv) == "1" {
		require.False(t, pool.BuiltinMade(), "the default pool was made before the analysis")
		var defaultIsCurrent, currentIsCurrent bool
		onDefault := pool.AnalyzeCPU(spawn64(pool.Default, &defaultIsCurrent))
		require.False(t, pool.BuiltinMade(), "Default made the default pool inside the analysis")
		require.True(t, defaultIsCurrent, "Default inside the analysis is not the analysis worker's pool")
		onCurrent := pool.AnalyzeCPU(spawn64(pool.Current, &currentIsCurrent))
		require.True(t, currentIsCurrent)
		require.Equal(t, onCurrent.Forks, onDefault.Forks, "forks counted")
		require.Equal(t, onCurrent.SpanForks, onDefault.SpanForks, "forks on the span")
		require.False(t, pool.BuiltinMade(), "an analysis made the default pool")
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestAnalyzeDefaultFirstUsedInside$", "-test.v")
	cmd.Env = append(os.Environ(), childEnv+"=1")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "child:\n%s", out)
	require.Contains(t, string(out), "--- PASS", "child:\n%s", out)
}
