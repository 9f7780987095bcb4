//go:build !linux || !amd64 || race

package deque

import "sync/atomic"

// Off linux/amd64, and in race-detector builds everywhere, Push keeps Go's
// sequentially consistent stores (on arm64 an STLR, which is a release
// store anyway), and the race detector sees every synchronisation.

func releasePushAvailable() bool { return false }

func storeBottom(p *atomic.Int64, v int64, _ bool) { p.Store(v) }

func storeSlot[T any](s *atomic.Pointer[T], v *T) { s.Store(v) }

// SyncWithOwners is the thieves' half of a store-buffering handshake with
// deque owners (see the linux/amd64 version). Here Push is always
// sequentially consistent, so the handshake holds without it and it does
// nothing.
func SyncWithOwners() {}
