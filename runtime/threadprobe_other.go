//go:build !linux

package runtime

import "time"

// threadProbe is the monitor's view of a thread (monitor.go); off Linux
// it sees nothing, and spares never start.
type threadProbe struct{}

const canWatchThreads = false

func threadID() int { return 0 }

func (p *threadProbe) cpuTime(int) (time.Duration, bool) { return 0, false }
func (p *threadProbe) runnable(int) bool                 { return true }
func (p *threadProbe) close()                            {}

func processCPU() time.Duration { return 0 }
