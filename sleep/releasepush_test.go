package sleep

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/spindle-go/spindle/deque"
	"github.com/spindle-go/spindle/internal/testutil"
)

// TestPostNeverStrandsAJobBesideASleeper races the awake idle workers'
// case of the package doc's argument, with a deque that publishes with
// release stores (deque.PublishWithRelease). Each round starts with worker
// 1 asleep and worker 0 awake and looking. A poster pushes a job and
// announces it (NewInternalJobs, the queue was empty: with one awake idle
// worker it may leave the sleeper alone); at the same moment worker 0
// stops looking (WorkFound), asking whether work is queued. Either the
// poster or worker 0 must wake the sleeper: a round where neither does
// leaves the job beside a sleeping worker while the only awake one has
// gone elsewhere. Without newJobs' fenced reread of the counters (a plain
// load there), such rounds occur on linux/amd64: the poster's load passes
// its push.
func TestPostNeverStrandsAJobBesideASleeper(t *testing.T) {
	if runtime.NumCPU() < 2 {
		t.Skip("needs two CPUs")
	}
	testutil.NeedTwoPs(t) // two spinning threads: one P would serialise them
	// A round takes about a microsecond on a quiet machine, tens under
	// load (roundsBudget then ends it early). With the plain load the strands
	// come in bursts: on the 2-vCPU test machine 2 of 100,000 rounds in one
	// run of three, 5 of a million in one run of four. This test catches
	// that mistake some of the time, never fails without it.
	rounds := 1_000_000
	if testing.Short() || raceEnabled {
		rounds = 10_000 // race builds publish with seq-cst stores
	}
	withWatchdog(t, func() {
		s := New(2)
		d := deque.NewChaseLev[int](0)
		d.PublishWithRelease()
		item := new(int)
		var start atomic.Int64
		var done [2]atomic.Int64
		stranded, ran := 0, 0
		// The two threads spin on each other: on a busy machine (other
		// test binaries of go test ./...) each round waits for time
		// slices. A time budget, not the round count, bounds the test then.
		deadline := time.Now().Add(roundsBudget)
		var wg sync.WaitGroup
		wg.Add(2)
		go func() { // the poster, owner of d
			defer wg.Done()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			for r := range rounds {
				for start.Load() != int64(r+1) {
					if start.Load() < 0 {
						return // the driver ran out of time
					}
				}
				d.Push(item)
				s.NewInternalJobs(1, true)
				done[0].Store(int64(r + 1))
			}
		}()
		go func() { // worker 0; also sets each round up and checks it
			defer wg.Done()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			sleeper := &s.workers[1]
			for r := range rounds {
				if r%1024 == 0 && time.Now().After(deadline) {
					start.Store(-1)
					return
				}
				// Worker 1 asleep (inactive and sleeping), worker 0 looking.
				s.counters.v.Store(uint64(2*inactiveOne + sleepingOne))
				sleeper.mu.Lock()
				sleeper.blocked = true
				sleeper.mu.Unlock()
				start.Store(int64(r + 1))
				s.WorkFound(func() bool { return d.Len() > 0 })
				for done[0].Load() != int64(r+1) {
				}
				sleeper.mu.Lock()
				if sleeper.blocked {
					stranded++
					sleeper.blocked = false
				}
				// Drop the wake-up's token, if any: nobody parks here, and
				// park would wait on a channel under spindle_portable.
				sleeper.parker = parker{}
				sleeper.parker.init(new(atomic.Uint32))
				sleeper.mu.Unlock()
				d.Steal() // empty the deque for the next round
				ran++
			}
		}()
		wg.Wait()
		assert.Zero(t, stranded, "rounds where nobody woke the sleeper, of %d", ran)
		t.Logf("%d rounds", ran)
	})
}

// roundsBudget bounds the rounds of a handshake race in time.
const roundsBudget = 5 * time.Second
