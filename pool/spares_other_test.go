//go:build !linux

package pool_test

import "testing"

// needSpares skips tests of compensation where no spare can start: the
// pool cannot tell a blocked worker off Linux.
func needSpares(t *testing.T) {
	t.Helper()
	t.Skip("spares start only on Linux")
}
