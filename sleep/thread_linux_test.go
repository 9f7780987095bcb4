//go:build linux

package sleep

import (
	"bytes"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// gettid returns the calling thread's id (call with the thread locked).
func gettid() int { return unix.Gettid() }

// threadAsleep reports whether thread tid of this process is blocked in the
// kernel (state S), which is where a parked worker's thread ends up with
// either parker: in our futex, or in the runtime's while its goroutine
// waits on a channel.
func threadAsleep(tid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/self/task/%d/stat", tid))
	if err != nil {
		return true // cannot tell; the caller's other checks must do
	}
	// The state follows the command name, which is in parentheses and may
	// contain spaces: "tid (comm) S ...".
	i := bytes.LastIndexByte(b, ')')
	return i >= 0 && i+2 < len(b) && b[i+2] == 'S'
}
