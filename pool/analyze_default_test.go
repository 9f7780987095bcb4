package pool_test

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/spindle-go/spindle/pool"
)

// TestAnalyzeDefaultFirstUsedInside analyses 64 equal tasks spawned on
// pool.Default().Scope, Default used for the first time inside the
// analysed function, and the same tasks on pool.Current().Scope: both
// must read the same parallelism. Calls on any pool run in place on the
// analysis worker, so Default must not start there; if it did, its start
// would be timed in the first strand, which is on the span.
//
// Other tests of this binary may have started Default, so each try runs
// in a child process of its own, where nothing has, with GOMAXPROCS=32:
// Default then has 32 workers to set up, as on a large machine, a cost
// that the analysis thread's CPU time (AnalyzeCPU, which a busy machine
// does not disturb) shows well above the tolerance. A try can still miss
// on a noisy machine, so up to five children try; a Default that starts
// inside the analysis makes every one of them miss.
func TestAnalyzeDefaultFirstUsedInside(t *testing.T) {
	const childEnv = "SPINDLE_ANALYZE_DEFAULT_CHILD"
	task := testStrand
	spawn64 := func(p func() *pool.Pool) func() {
		return func() {
			p().Scope(func(s *pool.Scope) {
				for range 64 {
					s.Spawn(func(*pool.Scope) { spin(task) })
				}
			})
		}
	}
	if os.Getenv(childEnv) == "1" {
		onDefault := pool.AnalyzeCPU(spawn64(pool.Default))
		onCurrent := pool.AnalyzeCPU(spawn64(pool.Current))
		fmt.Printf("Default: %v\nCurrent: %v\n", onDefault, onCurrent)
		if !within(onDefault.Parallelism(), onCurrent.Parallelism(), 0.25) {
			t.Fatalf("parallelism %.2f with Default first used inside the analysis, %.2f with Current",
				onDefault.Parallelism(), onCurrent.Parallelism())
		}
		return
	}
	var outs []string
	for try := 0; try < 5; try++ {
		cmd := exec.Command(os.Args[0], "-test.run=^TestAnalyzeDefaultFirstUsedInside$", "-test.v")
		cmd.Env = append(os.Environ(), childEnv+"=1", "GOMAXPROCS=32")
		out, err := cmd.CombinedOutput()
		t.Logf("try %d:\n%s", try, out)
		if err == nil {
			return
		}
		outs = append(outs, string(out))
	}
	require.Fail(t, "every try read another parallelism with Default", strings.Join(outs, "\n"))
}
