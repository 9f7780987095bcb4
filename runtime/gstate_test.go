package runtime

import (
	goruntime "runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGoroutineStatesAreReadable: where currentG is a g pointer, the
// status word is found, and goroutineBlocked tells a goroutine that waits
// (a channel, a mutex, a sleep) from one that runs or waits for a P. It
// fails on a Go release that moves the states beyond what the search
// finds (gstate.go).
func TestGoroutineStatesAreReadable(t *testing.T) {
	if !haveGPointer {
		t.Skip("currentG is no g pointer here")
	}
	require.True(t, canSeeGoroutines(), "the status word of a g record was not found")
	assert.False(t, goroutineBlocked(currentG()), "the running goroutine")
	var mu sync.Mutex
	mu.Lock()
	release := make(chan struct{})
	var waiters sync.WaitGroup
	defer func() {
		close(release)
		mu.Unlock()
		waiters.Wait()
	}()
	for _, tc := range []struct {
		name string
		wait func()
	}{
		{"a channel", func() { <-release }},
		{"a mutex", func() { mu.Lock(); defer mu.Unlock() }},
		{"a sleep", func() { time.Sleep(10 * time.Millisecond) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := make(chan uintptr)
			waiters.Add(1)
			go func() {
				defer waiters.Done()
				g <- currentG()
				for {
					tc.wait()
					select {
					case <-release:
						return
					default:
					}
				}
			}()
			gp := <-g
			assert.Eventually(t, func() bool { return goroutineBlocked(gp) }, 10*time.Second, time.Millisecond)
		})
	}
	// A goroutine that spins, running or waiting for a P (one P: the
	// test goroutine holds it while it looks).
	defer goruntime.GOMAXPROCS(goruntime.GOMAXPROCS(1))
	var stop atomic.Bool
	defer stop.Store(true)
	g := make(chan uintptr)
	go func() {
		g <- currentG()
		for !stop.Load() {
		}
	}()
	gp := <-g
	for range 20 {
		require.False(t, goroutineBlocked(gp), "a spinning goroutine")
		goruntime.Gosched()
	}
}
