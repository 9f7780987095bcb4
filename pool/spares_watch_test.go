//go:build amd64 || arm64

package pool_test

import "testing"

// needSpares skips tests of compensation where no spare can start.
func needSpares(t *testing.T) { t.Helper() }
