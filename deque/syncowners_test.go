package deque

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
)

// storeBufferingRounds runs rounds of the store-buffering handshake of
// SyncWithOwners on two threads and returns how many ended with both
// sides missing the other's write. Each round: the owner pushes an item
// and then loads w; the other side adds 1 to w, calls fence (if not nil)
// and then reads the deque's length. The two start each round together
// (a spin on go), so that their steps overlap.
func storeBufferingRounds(rounds int, fence func()) (bothMissed int) {
	d := releaseChaseLev[int](0)
	item := new(int)
	var w atomic.Int64
	var start atomic.Int64
	var done [2]atomic.Int64
	sawW, sawItem := make([]bool, rounds), make([]bool, rounds)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { // the owner
		defer wg.Done()
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		for r := range rounds {
			for start.Load() != int64(r+1) {
			}
			d.Push(item)
			sawW[r] = w.Load() != int64(r)
			for done[1].Load() != int64(r+1) { // let the other side look first
			}
			d.Pop()
			done[0].Store(int64(r + 1))
		}
	}()
	go func() { // the writer of w
		defer wg.Done()
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		for r := range rounds {
			for done[0].Load() != int64(r) {
			}
			start.Store(int64(r + 1))
			w.Add(1)
			if fence != nil {
				fence()
			}
			sawItem[r] = d.Len() > 0
			done[1].Store(int64(r + 1))
		}
	}()
	wg.Wait()
	for r := range rounds {
		if !sawW[r] && !sawItem[r] {
			bothMissed++
		}
	}
	return bothMissed
}

// TestSyncWithOwnersHandshake checks SyncWithOwners' promise: of an owner
// that pushes then loads a word, and a thread that changes the word,
// calls SyncWithOwners, then looks at the deque, at least one sees the
// other's write. (Without the call, rounds where both miss show up on
// linux/amd64, where Push is a release store: see
// TestStoreBufferingWithoutSync.)
//
// 100,000 rounds: without the call, about 0.7% of rounds (1,438 of 200,000
// once, 35 of 200,000 another time) ended with both missing on the 2-vCPU
// test machine, so even at the lower rate a broken SyncWithOwners fails
// this test with probability above 99.9%.
func TestSyncWithOwnersHandshake(t *testing.T) {
	needTwoPs(t)
	needTwoCPUs(t)
	rounds := 100_000
	if testing.Short() || raceEnabled {
		rounds = 10_000 // race builds use seq-cst pushes: nothing to find
	}
	runWithWatchdog(t, watchdogLimit, func() {
		assert.Zero(t, storeBufferingRounds(rounds, SyncWithOwners), "rounds where both sides missed the other's write")
	})
}

// TestStoreBufferingWithoutSync runs the same rounds without
// SyncWithOwners and logs how many ended with both sides missing the
// other: the reordering that SyncWithOwners exists for. It asserts
// nothing (whether the hardware shows it in a given run is up to the
// hardware); run it with -v to see the count.
func TestStoreBufferingWithoutSync(t *testing.T) {
	if testing.Short() {
		t.Skip("logs a hardware behaviour; asserts nothing")
	}
	needTwoPs(t)
	needTwoCPUs(t)
	runWithWatchdog(t, watchdogLimit, func() {
		t.Logf("release pushes: %v; rounds where both missed, of 200000 without SyncWithOwners: %d",
			NewChaseLev[int](0).PublishWithRelease(), storeBufferingRounds(200000, nil))
	})
}

// needTwoCPUs skips a test whose two spinning threads need a CPU each: on
// one CPU each round would wait for a time slice.
func needTwoCPUs(t *testing.T) {
	if runtime.NumCPU() < 2 {
		t.Skip("needs two CPUs")
	}
}
