//go:build !amd64 && !arm64

package runtime

import (
	goruntime "runtime"
)

// currentG returns the calling goroutine's id, parsed from the first line
// of its stack trace ("goroutine 123 [running]:"). Correct everywhere but
// slow (about a microsecond): architectures without the assembly fast path
// pay it on every off-pool check and every fork.
func currentG() uintptr {
	var buf [64]byte
	n := goruntime.Stack(buf[:], false)
	const prefix = len("goroutine ")
	var id uintptr
	for _, c := range buf[prefix:n] {
		if c < '0' || c > '9' {
			break
		}
		id = id*10 + uintptr(c-'0')
	}
	return id
}

const fastGoroutineID = false
