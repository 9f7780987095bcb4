//go:build !linux

package pool_test

func threadID() int { return -1 }

func threadAlive(int) bool { return false }
