package pool_test

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

func threadID() int { return unix.Gettid() }

func threadAlive(tid int) bool {
	_, err := os.Stat(fmt.Sprintf("/proc/self/task/%d", tid))
	return err == nil
}
