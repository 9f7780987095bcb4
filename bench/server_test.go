package bench

import (
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Every handler answers every request right, from many clients at once,
// and RunServer reports a wrong answer.
func TestServerStylesAgree(t *testing.T) {
	for _, n := range []int{1, serverGrain - 1, 3*serverGrain + 7, 20_000} {
		want := ServerRequest(0, n)
		for _, st := range ServerStyles {
			run, ok := RunServer(4, 40, n, st.Serve, want)
			require.True(t, ok, "%s, n=%d", st.Name, n)
			require.Len(t, run.Latencies, 40)
		}
	}
	_, ok := RunServer(2, 4, 100, func(n int) uint64 { return ServerRequest(0, n) + 1 }, ServerRequest(0, 100))
	require.False(t, ok)
}

// RunServer counts the garbage collections that ended during the run: a
// handler that collects once a request (one client: calls at once may
// share a collection) shows at least one per request.
func TestRunServerCountsCollections(t *testing.T) {
	collecting := func(n int) uint64 { runtime.GC(); return ServerRequest(0, n) }
	run, ok := RunServer(1, 6, 100, collecting, ServerRequest(0, 100))
	require.True(t, ok)
	require.GreaterOrEqual(t, run.GCCycles, uint64(6))
}

// RunBeside counts the answers of both endpoints, checks them, and
// reports a wrong one.
func TestRunBesideCountsBothEndpoints(t *testing.T) {
	want := ServerRequest(0, 20_000)
	for _, st := range ServerStyles {
		run, ok := RunBeside(2, 50*time.Millisecond, 20_000, st.Serve, want)
		require.True(t, ok, st.Name)
		require.Positive(t, run.Busy+run.Tested, st.Name)
	}
	_, ok := RunBeside(1, time.Millisecond, 100, func(n int) uint64 { return ServerRequest(0, n) + 1 }, ServerRequest(0, 100))
	require.False(t, ok)
}
