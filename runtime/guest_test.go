package runtime

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/spindle-go/spindle/internal/testutil"
)

// A detached task spawned in a guest's call goes on the guest's deque;
// when the call returns it moves to the injector, so that no job stays on
// a slot whose goroutine has left. The only worker is blocked meanwhile,
// so nothing else can take the task before the check.
func TestGuestMovesLeftoverJobsToTheInjector(t *testing.T) {
	r := newRegistry(t, Config{Workers: 1, Guests: 1})
	watchdog(t, func() {
		started, block := make(chan struct{}), make(chan struct{})
		r.Spawn("test spawn", func() { close(started); <-block })
		<-started
		ran := make(chan int, 1)
		var slot *Worker
		r.Run("test run", func() {
			slot = CurrentWorker()
			r.Spawn("test spawn", func() { ran <- CurrentWorker().Index() })
		})
		require.NotNil(t, slot)
		assert.True(t, slot.guest, "the call did not run as a guest")
		assert.True(t, slot.deque.Empty(), "the detached task stayed on the guest's deque")
		assert.True(t, r.injector.nonEmpty(), "the detached task is not on the injector")
		close(block)
		assert.Equal(t, 0, <-ran, "the detached task ran elsewhere than on the worker")
	})
}

// Without guest slots, or where the monitor cannot find a stale guest
// (it cannot see goroutine states), saturated is false whatever the
// counts say: the checks that consult it (a steal round's, a guest's
// push) then cost one load of an immutable field. Spares play no part.
func TestSaturatedWithoutGuests(t *testing.T) {
	r := newRegistry(t, Config{Workers: 1, Spares: 1})
	assert.False(t, r.saturated())
	g := newRegistry(t, Config{Workers: 1, Guests: 2})
	if !canSeeGoroutines() {
		g.guests.procs.Store(1)
		g.guests.running.Store(2)
		assert.False(t, g.saturated(), "saturated without seeing goroutine states")
		g.guests.running.Store(0)
		return
	}
	g.guests.procs.Store(2)
	g.guests.running.Store(1)
	assert.False(t, g.saturated())
	g.guests.running.Store(2)
	assert.True(t, g.saturated())
	g.guests.running.Store(0)
}

// Saturation holds from a guest's arrival that fills the Ps until the
// monitor's round finds fewer guests in a call: a handler entering in the
// dip between two calls of another must not offer its forks to workers
// that would wait for a P the handlers hold.
func TestSaturationLastsUntilTheMonitorsRound(t *testing.T) {
	g := newUnmonitored(t, Config{Workers: 1, Guests: 2}) // the test plays the monitor
	g.guests.watched = true
	g.guests.procs.Store(2)
	g.guests.running.Store(1)
	g.noteGuestEntered(1)
	assert.False(t, g.saturated(), "one guest at two Ps")
	g.guests.running.Store(2)
	g.noteGuestEntered(2)
	require.True(t, g.saturated())
	g.guests.running.Store(1) // the other guest between two calls
	assert.True(t, g.saturated(), "saturation ended before the monitor's round")
	g.noteFilled()
	assert.False(t, g.saturated(), "saturation outlived the monitor's round")
	g.guests.running.Store(0)
}

// A guest holds its thread while it is alone or leaves a P to a worker,
// not while the Ps were filled since the monitor's last round, except at
// one P, where the one guest fills the P and is alone.
func TestGuestHoldsThread(t *testing.T) {
	for _, c := range []struct {
		procs, running int32
		filled         bool
		want           bool
	}{
		{procs: 1, running: 1, want: true},
		{procs: 1, running: 1, filled: true, want: true},
		{procs: 1, running: 2, filled: true, want: false},
		{procs: 2, running: 1, want: true},
		{procs: 2, running: 1, filled: true, want: false},
		{procs: 2, running: 2, filled: true, want: false},
		{procs: 4, running: 3, want: true},
	} {
		g := newRegistry(t, Config{Workers: 1, Guests: 4})
		g.guests.procs.Store(c.procs)
		g.guests.running.Store(c.running)
		g.guests.filled.Store(c.filled)
		assert.Equal(t, c.want, g.guestHoldsThread(), "%+v", c)
		g.guests.running.Store(0)
	}
}

// spinFor computes for about d.
func spinFor(d time.Duration) {
	for start := time.Now(); time.Since(start) < d; {
	}
}

// A guest computes on a P of its own, so it takes a worker's place: with
// two workers at two Ps, the guest's forks are stolen by the first-ranked
// worker only; the second, surplus while the call lasts, steals from no
// guest: woken again and again, it parks once out of work.
func TestGuestTakesAWorkersPlace(t *testing.T) {
	r := startSized(t, 2, Config{Workers: 2, Guests: 1})
	watchdog(t, func() {
		waitAsleep(t, r, 2)
		r.sizing.mu.Lock()
		first, second := r.sizing.ranked[0], r.sizing.ranked[1]
		r.sizing.mu.Unlock()
		var byFirst, bySecond atomic.Int64
		r.Run("test", func() {
			require.True(t, CurrentWorker().guest, "the call did not run as a guest")
			deadline := time.Now().Add(testutil.Limit / 4)
			for byFirst.Load() < 20 && time.Now().Before(deadline) {
				r.sleep.WakeSleeping(second.index) // to look, as if for work
				JoinCurrent("test", func() { spinFor(50 * time.Microsecond) }, func() {
					switch CurrentWorker() {
					case first:
						byFirst.Add(1)
					case second:
						bySecond.Add(1)
					}
					spinFor(50 * time.Microsecond)
				}, nil)
			}
		})
		assert.Zero(t, bySecond.Load(), "the second worker stole from the guest")
		assert.Positive(t, byFirst.Load(), "nobody stole from the guest")
	})
}

// A worker parked while guests ran comes back for a call handed to the
// workers: the injection wakes it, not only the monitor's rounds (stopped
// here).
func TestParkedWorkerComesBackForInjectedWork(t *testing.T) {
	r := startSized(t, 2, Config{Workers: 2, Guests: 1})
	r.stopSpares()
	watchdog(t, func() {
		waitAsleep(t, r, 2)
		r.sizing.mu.Lock()
		second := r.sizing.ranked[1]
		r.sizing.mu.Unlock()
		r.guests.running.Add(1) // as while a guest's call lasts
		r.sleep.WakeSleeping(second.index)
		waitParked(t, r, 1)
		r.guests.running.Add(-1)
		ran := make(chan struct{})
		r.Spawn("test spawn", func() { close(ran) })
		<-ran
		for second.surplus.Load() {
			time.Sleep(100 * time.Microsecond)
		}
		assert.Zero(t, r.sizing.parked.Load())
	})
}

// A guest that computes while the guests fill the Ps keeps a bulk spawn's
// tasks in few parts: no thief visits it, so splitting for the sleeping
// workers (which count as looking) only multiplied its jobs.
func TestSaturatedGuestKeepsBulkSpawnsWhole(t *testing.T) {
	const tasks = 1000
	var ran atomic.Int64
	r := inSaturatedGuest(t, 1, func(r *Registry, _ *Worker) {
		r.Scope("test", func(s *Scope) {
			s.SpawnMany(tasks, func(*Scope, int) { ran.Add(1) })
		})
	})
	assert.EqualValues(t, tasks, ran.Load())
	assert.Less(t, r.Counts().Total.Executed, uint64(tasks/10), "jobs run for %d tasks", tasks)
}

// inSaturatedGuest runs body in a call from the test's goroutine, a guest
// of a registry of one worker (asleep when the call begins) and spares
// spares at one P, where the one guest fills the Ps (saturated), and
// returns the registry.
func inSaturatedGuest(t *testing.T, spares int, body func(r *Registry, guest *Worker)) *Registry {
	t.Helper()
	r := startSized(t, 1, Config{Workers: 1, Guests: 1, Spares: spares})
	watchdog(t, func() {
		waitAsleep(t, r, 1)
		r.Run("test", func() {
			w := CurrentWorker()
			require.True(t, w.guest, "the call did not run as a guest")
			require.True(t, r.saturated())
			body(r, w)
		})
	})
	return r
}

// A saturated guest withdraws an offer (a thief's request, or one left on
// its slot by an earlier call) instead of publishing a fork at every
// offer: no thief would take it, and each would be taken back.
func TestSaturatedGuestWithdrawsItsOffer(t *testing.T) {
	inSaturatedGuest(t, 1, func(_ *Registry, w *Worker) {
		w.offer.Store(1)
		assert.Equal(t, 64*63/2, joinSum(0, 64))
		assert.Zero(t, w.offer.Load(), "the offer stayed")
	})
}

// A saturated guest whose task blocks until a sibling task queued behind
// it has run (a barrier) does not hang: no thief visits a saturated guest,
// but the monitor finds its queued tasks still and marks it stale, and a
// worker comes for them.
func TestSaturatedGuestBlockedOnItsQueuedTask(t *testing.T) {
	// The guest, the worker and one spare (for the worker once blocked)
	// run the three tasks.
	const tasks = 3
	var arrived sync.WaitGroup
	arrived.Add(tasks)
	inSaturatedGuest(t, 2, func(r *Registry, _ *Worker) {
		r.Scope("test", func(s *Scope) {
			for range tasks {
				s.Spawn(func(*Scope) { arrived.Done(); arrived.Wait() })
			}
		})
	})
}

// A guest whose queued jobs stay still is marked stale, and a worker
// woken for them, at the monitor's next round, if its goroutine waits
// outside the engine (a task it runs blocked); not while it computes or
// waits for a P, when it runs its queue itself once back on a P.
func TestStaleGuestOnlyWhileItWaits(t *testing.T) {
	for _, waiting := range []bool{false, true} {
		t.Run(fmt.Sprintf("waiting=%v", waiting), func(t *testing.T) {
			r := newUnmonitored(t, Config{Workers: 1, Guests: 1}) // the test makes the rounds
			watchdog(t, func() {
				// Asleep, the worker steals nothing until the mark wakes it
				// (a job pushed without announcing it wakes nobody).
				waitAsleep(t, r, 1)
				r.Run("test", func() {
					w := CurrentWorker()
					require.True(t, w.guest, "the call did not run as a guest")
					j := new(Job)
					j.Init(noopRunner{}, w)
					w.deque.Push(j)
					var ws runnerWatch
					r.noteStaleGuest(w, &ws, waiting)
					require.False(t, w.stale.Load(), "stale at the first look")
					r.noteStaleGuest(w, &ws, waiting)
					assert.Equal(t, waiting, w.stale.Load(), "still for a round")
					if waiting {
						r.noteStaleGuest(w, &ws, false)
						assert.False(t, w.stale.Load(), "stale once it computes again")
					}
				})
			})
		})
	}
}

// A guest's call that hands nothing to the workers leaves the monitor in
// its idle park: its kick is owed, not paid (readying the monitor made
// the scheduler wake a thread, on the caller's time). A call that hands a
// job over pays it. (With one worker, a guest fills the workers' count and
// kicks the monitor, which alone clears the setting that makes: sharedPs.)
func TestGuestCallLeavesTheMonitorParked(t *testing.T) {
	r := startSized(t, 2, Config{Workers: 2, Guests: 1, Spares: 1})
	watchdog(t, func() {
		waitAsleep(t, r, 2)
		r.Run("test", func() { require.True(t, CurrentWorker().guest, "the call did not run as a guest") })
		assert.True(t, r.spares.kickOwed.Load(), "the guest's call kicked the monitor")
		ran := make(chan struct{})
		r.Spawn("test spawn", func() { close(ran) })
		<-ran
		assert.False(t, r.spares.kickOwed.Load(), "a job handed to the workers did not kick the monitor")
	})
}

// The first call after the pool was idle, from a goroutine, whose tasks
// wait for each other (a barrier of three): the guest and the worker that
// steals from it block in the first two (the second worker is surplus
// while the guest takes its place: size.go), and the third needs another
// thread, which only the monitor provides. The worker kicks it as it takes the
// stolen task; without that the monitor would stay parked and the call
// hang.
func TestFirstGuestCallAfterIdleGetsASpare(t *testing.T) {
	const tasks = 3
	r := startSized(t, 2, Config{Workers: 2, Guests: 1, Spares: 2})
	watchdog(t, func() {
		waitAsleep(t, r, 2)
		var arrived sync.WaitGroup
		arrived.Add(tasks)
		r.Run("test", func() {
			require.True(t, CurrentWorker().guest, "the call did not run as a guest")
			r.Scope("test", func(s *Scope) {
				for range tasks {
					s.Spawn(func(*Scope) { arrived.Done(); arrived.Wait() })
				}
			})
		})
	})
}

// Guest slots go back to their cells and are taken again: callers one at
// a time use one slot, and eight callers at once never more than eight,
// however many calls they make.
func TestGuestSlotsAreReused(t *testing.T) {
	r := newRegistry(t, Config{Workers: 1, Guests: 16})
	watchdog(t, func() {
		for range 100 {
			r.Run("test", func() {})
		}
		r.slotMu.Lock()
		assert.Equal(t, int32(1), r.guests.made.Load(), "slots made by calls one at a time")
		r.slotMu.Unlock()
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				for range 200 {
					r.Run("test", func() {})
				}
			})
		}
		wg.Wait()
		r.slotMu.Lock()
		assert.LessOrEqual(t, r.guests.made.Load(), int32(8), "slots made by eight callers")
		r.slotMu.Unlock()
		taken := 0
		for i := range r.guests.made.Load() {
			if r.guests.idle[i].w.Load() == nil {
				taken++
			}
		}
		assert.Zero(t, taken, "slots not back in their cells after the calls")
	})
}

// A caller that finds no free guest slot falls back to an injected call
// without waiting for the slot lock: callers that compute side by side
// queue on a lock (the waiter its holder wakes waits for the holder's
// time slice). The test holds the lock while a caller arrives, with every
// slot made and in use, and with none made: were the lock taken on that
// path, the call would never start and the watchdog would fail.
func TestCallerWithoutFreeSlotWaitsForNoLock(t *testing.T) {
	for _, inUse := range []int{2, 0} {
		t.Run(fmt.Sprintf("%d of 2 slots in use", inUse), func(t *testing.T) {
			r := newRegistry(t, Config{Workers: 1, Guests: 2})
			watchdog(t, func() {
				release := make(chan struct{})
				var inside, callers sync.WaitGroup
				for range inUse {
					inside.Add(1)
					callers.Go(func() {
						r.Run("test", func() {
							inside.Done()
							<-release
						})
					})
				}
				inside.Wait()
				r.slotMu.Lock()
				ranAsGuest := make(chan bool)
				go r.Run("test", func() { ranAsGuest <- CurrentWorker().guest })
				assert.False(t, <-ranAsGuest, "the caller ran as a guest")
				r.slotMu.Unlock()
				close(release)
				callers.Wait()
			})
		})
	}
}

// Workers parked while guests ran come back once the guests leave, in
// every registry: the monitor's rounds wake them (a registry without
// spares has a monitor too). Three guests in a call park three of four
// workers; after they leave, a lone guest's tasks run on four threads,
// the guest's and those of the three workers its call lets run (it takes
// the fourth's place), not on the one worker left running.
func TestWorkersParkedForGuestsComeBackWithoutSpares(t *testing.T) {
	r := startSized(t, 4, Config{Workers: 4, Guests: 4})
	watchdog(t, func() {
		waitAsleep(t, r, 4)
		release := make(chan struct{})
		var in, out sync.WaitGroup
		for range 3 {
			in.Add(1)
			out.Add(1)
			go func() {
				defer out.Done()
				r.Run("test", func() { in.Done(); <-release })
			}()
		}
		in.Wait()
		r.sizing.mu.Lock()
		ranked := slices.Clone(r.sizing.ranked)
		r.sizing.mu.Unlock()
		for _, w := range ranked[1:] {
			r.sleep.WakeSleeping(w.index) // to look, as if for work: surplus, it parks
		}
		waitParked(t, r, 1)
		close(release)
		out.Wait()
		var ran sync.Map
		r.Run("test", func() {
			r.Scope("test", func(s *Scope) {
				for range 64 {
					s.Spawn(func(*Scope) {
						ran.Store(CurrentWorker().index, true)
						spinFor(2 * time.Millisecond)
					})
				}
			})
		})
		n := 0
		ran.Range(func(any, any) bool { n++; return true })
		assert.Equal(t, 4, n, "threads that ran the tasks: the guest and three workers")
	})
}
