package deque

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/spindle-go/spindle/internal/testutil"
)

// storeBufferingRounds runs rounds of the store-buffering handshake of
// SyncWithOwners on two threads and returns how many ended with both
// sides missing the other's write. Each round: the owner pushes an item
// and then loads w; the other side adds 1 to w, calls fence (if not nil)
// and then reads the deque's length. The two start each round together
// (a spin on start), so that their steps overlap. The rounds stop early
// once roundsBudget has passed (on a busy machine each round waits for
// time slices); ran says how many ran.
func storeBufferingRounds(rounds int, fence func()) (bothMissed, ran int) {
	d := releaseChaseLev[int](0)
	item := new(int)
	var w atomic.Int64
	var start atomic.Int64
	var done [2]atomic.Int64
	sawW, sawItem := make([]bool, rounds), make([]bool, rounds)
	deadline := time.Now().Add(roundsBudget)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { // the owner
		defer wg.Done()
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		for r := range rounds {
			for start.Load() != int64(r+1) {
				if start.Load() < 0 {
					return // the other side ran out of time
				}
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
			if r%1024 == 0 && time.Now().After(deadline) {
				start.Store(-1)
				return
			}
			start.Store(int64(r + 1))
			w.Add(1)
			if fence != nil {
				fence()
			}
			sawItem[r] = d.Len() > 0
			done[1].Store(int64(r + 1))
			ran++
		}
	}()
	wg.Wait()
	for r := range ran {
		if !sawW[r] && !sawItem[r] {
			bothMissed++
		}
	}
	return bothMissed, ran
}

// roundsBudget bounds the rounds of a handshake race in time.
const roundsBudget = 5 * time.Second

// TestSyncWithOwnersHandshake checks SyncWithOwners' promise: of an owner
// that pushes then loads a word, and a thread that changes the word,
// calls SyncWithOwners, then looks at the deque, at least one sees the
// other's write. (Without the call, rounds where both miss show up on
// linux/amd64, where Push is a release store: see
// BenchmarkStoreBufferingWithoutSync.)
//
// 100,000 rounds (fewer if roundsBudget runs out). Without the call, runs
// on the 2-vCPU test machine had 1,438, 204, 35 and 2 of 200,000 rounds
// with both missing: the rate swings with where the threads land, so this
// test catches a broken SyncWithOwners most of the time (it failed at once
// with the call removed), and never fails with a working one.
func TestSyncWithOwnersHandshake(t *testing.T) {
	needTwoPs(t)
	needTwoCPUs(t)
	rounds := 100_000
	if testing.Short() || raceEnabled {
		rounds = 10_000 // race builds use seq-cst pushes: nothing to find
	}
	runWithWatchdog(t, watchdogLimit, func() {
		missed, ran := storeBufferingRounds(rounds, SyncWithOwners)
		assert.Zero(t, missed, "rounds where both sides missed the other's write, of %d", ran)
		t.Logf("%d rounds", ran)
	})
}

// BenchmarkStoreBufferingWithoutSync runs b.N rounds of
// TestSyncWithOwnersHandshake's race without SyncWithOwners and reports
// the share of rounds where both sides missed the other's write
// (both-missed/round): the reordering that SyncWithOwners exists for.
// Whether the hardware shows it in a given run is up to the hardware, so
// the share is reported, not checked. It fails if no round ran at all
// (the budget ran out before the first: nothing was measured).
//
//	go test -run '^$' -bench StoreBufferingWithoutSync -benchtime 200000x ./deque
func BenchmarkStoreBufferingWithoutSync(b *testing.B) {
	testutil.NeedTwoPs(b)
	needTwoCPUs(b)
	var missed, ran int
	runWithWatchdog(b, watchdogLimit, func() { missed, ran = storeBufferingRounds(b.N, nil) })
	if ran == 0 {
		b.Fatal("no round ran within the budget")
	}
	b.ReportMetric(float64(missed)/float64(ran), "both-missed/round")
	b.ReportMetric(float64(ran), "rounds")
	b.Logf("release pushes: %v", NewChaseLev[int](0).PublishWithRelease())
}

// needTwoCPUs skips a test whose two spinning threads need a CPU each: on
// one CPU each round would wait for a time slice.
func needTwoCPUs(t testing.TB) {
	if runtime.NumCPU() < 2 {
		t.Skip("needs two CPUs")
	}
}
