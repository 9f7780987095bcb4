package runtime

import goruntime "runtime"

// goroutineID returns the calling goroutine's id, parsed from the first
// line of its stack trace ("goroutine 123 [running]:"). It is the portable
// identity behind currentG where there is no assembly fast path; it is
// compiled everywhere so that its tests run everywhere.
func goroutineID() uintptr {
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
