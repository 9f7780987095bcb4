package main

import (
	"fmt"
	"os"
	"syscall"
)

// threadID is the calling thread's id; 0 for the process's main thread,
// which Go never ends (a worker that started on it cannot end it).
func threadID() int {
	if tid := syscall.Gettid(); tid != os.Getpid() {
		return tid
	}
	return 0
}

func threadAlive(tid int) bool {
	_, err := os.Stat(fmt.Sprintf("/proc/self/task/%d", tid))
	return err == nil
}
