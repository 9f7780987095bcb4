//go:build !amd64 && !arm64

package pool_test

import "testing"

// needSpares skips tests of compensation where no spare can start: the
// pool cannot read a goroutine's state here (runtime/gstate.go).
func needSpares(t *testing.T) {
	t.Helper()
	t.Skip("spares start only on amd64 and arm64")
}
