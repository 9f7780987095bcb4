package bench

import (
	"testing"

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
