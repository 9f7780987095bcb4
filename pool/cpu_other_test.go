//go:build !unix

package pool_test

import "time"

// processCPU is not measured off Unix.
func processCPU() time.Duration { return 0 }
