//go:build !amd64 && !arm64

package sleep

import "sync/atomic"

var pauseDummy atomic.Uint32

// pause busy-waits for about n short iterations (an atomic load each, which
// the compiler cannot remove).
func pause(n uint32) {
	for range n {
		pauseDummy.Load()
	}
}
