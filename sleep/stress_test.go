package sleep

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// jobQueue stands in for a deque or the injector: a locked FIFO of job ids.
// size mirrors len(ids) for lock-free emptiness checks (hasInjected).
type jobQueue struct {
	mu   sync.Mutex
	ids  []int32
	size atomic.Int32
}

// push appends ids and reports whether the queue was empty before. The
// jobs are published (visible to pop and size) when it returns.
func (q *jobQueue) push(ids ...int32) (wasEmpty bool) {
	q.mu.Lock()
	wasEmpty = len(q.ids) == 0
	q.ids = append(q.ids, ids...)
	q.size.Store(int32(len(q.ids)))
	q.mu.Unlock()
	return wasEmpty
}

func (q *jobQueue) pop() (int32, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.ids) == 0 {
		return 0, false
	}
	id := q.ids[0]
	q.ids = q.ids[1:]
	q.size.Store(int32(len(q.ids)))
	return id, true
}

func (q *jobQueue) nonEmpty() bool { return q.size.Load() > 0 }

// poolModel is a small pool driven by the sleep protocol: workers take jobs
// from a shared "deque" and an injector, posters feed both, and some jobs
// fork a child onto the deque from inside a worker. Every job must run
// exactly once, and the pool must never sleep with a job waiting (that
// would be a hang, caught by the watchdog).
type poolModel struct {
	s        *Sleep
	deque    jobQueue
	injector jobQueue
	ran      []atomic.Uint32 // runs per job id
	nextID   atomic.Int32
	executed atomic.Int64
	stop     []Latch

	sleepingPosts atomic.Int64 // posts made while every worker slept
	forks         atomic.Int64
}

func newPoolModel(workers, jobs int) *poolModel {
	return &poolModel{
		s:    New(workers),
		ran:  make([]atomic.Uint32, jobs),
		stop: make([]Latch, workers),
	}
}

// newIDs allocates up to n job ids.
func (m *poolModel) newIDs(n int) []int32 {
	var ids []int32
	for range n {
		id := m.nextID.Add(1) - 1
		if int(id) >= len(m.ran) {
			m.nextID.Add(-1)
			break
		}
		ids = append(ids, id)
	}
	return ids
}

func (m *poolModel) take() (int32, bool) {
	if id, ok := m.deque.pop(); ok {
		return id, true
	}
	return m.injector.pop()
}

func (m *poolModel) worker(i int) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	st := m.s.StartLooking(i)
	for {
		if id, ok := m.take(); ok {
			m.s.WorkFound(m.queued)
			m.run(id)
			st = m.s.StartLooking(i)
			continue
		}
		if m.stop[i].Probe() {
			break
		}
		m.s.NoWorkFound(&st, &m.stop[i], m.injector.nonEmpty)
	}
	m.s.WorkFound(m.queued)
}

// queued is the engine's workQueued for the model: a job waits on the
// deque or the injector.
func (m *poolModel) queued() bool { return m.deque.nonEmpty() || m.injector.nonEmpty() }

func (m *poolModel) run(id int32) {
	m.ran[id].Add(1)
	if id%5 == 0 {
		// Fork a child onto the deque, as a join would.
		if ids := m.newIDs(1); len(ids) > 0 {
			m.forks.Add(1)
			m.s.NewInternalJobs(1, m.deque.push(ids...))
		}
	}
	m.executed.Add(1)
}

func (m *poolModel) allAsleep() bool { return m.s.counters.load().sleeping() == len(m.stop) }

// poster posts bursts of jobs until the ids run out. Now and then it waits
// until every worker sleeps before posting (the case a lost wake-up would
// hang), or until everything posted so far ran.
func (m *poolModel) poster(seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 1))
	for {
		switch r := rng.IntN(16); {
		case r < 2:
			waitFor(func() bool { return m.allAsleep() || m.nextID.Load() == int32(len(m.ran)) })
			if m.allAsleep() {
				m.sleepingPosts.Add(1)
			}
		case r < 4:
			posted := int64(m.nextID.Load())
			waitFor(func() bool { return m.executed.Load() >= posted })
		}
		ids := m.newIDs(1 + rng.IntN(4))
		if len(ids) == 0 {
			return
		}
		if rng.IntN(2) == 0 {
			m.s.NewInternalJobs(len(ids), m.deque.push(ids...))
		} else {
			m.s.NewInjectedJobs(len(ids), m.injector.push(ids...))
		}
	}
}

func TestNoLostWakeups(t *testing.T) {
	jobs := 120_000
	if raceEnabled {
		jobs = 50_000
	}
	if testing.Short() {
		jobs /= 10
	}
	for _, workers := range []int{1, 3} {
		t.Run(fmt.Sprintf("workers=%d", workers), func(t *testing.T) {
			m := newPoolModel(workers, jobs)
			const posters = 2
			withWatchdog(t, func() {
				var wg sync.WaitGroup
				for i := range workers {
					wg.Go(func() { m.worker(i) })
				}
				var pg sync.WaitGroup
				for i := range posters {
					pg.Go(func() { m.poster(uint64(i)) })
				}
				pg.Wait()
				waitFor(func() bool { return m.executed.Load() == int64(jobs) })
				for i := range m.stop {
					if m.stop[i].Set() {
						m.s.WakeWorker(i)
					}
				}
				wg.Wait()
			})
			require.Equal(t, int64(jobs), m.executed.Load())
			for id := range m.ran {
				if n := m.ran[id].Load(); n != 1 {
					require.Failf(t, "job not run exactly once", "job %d ran %d times", id, n)
				}
			}
			c := m.s.counters.load()
			assert.Equal(t, 0, c.inactive())
			assert.Equal(t, 0, c.sleeping())
			st := m.s.Stats()
			t.Logf("%d jobs (%d forked), %d sleeps, %d wake-ups, %d posts to a sleeping pool",
				jobs, m.forks.Load(), st.Sleeps, st.Wakeups, m.sleepingPosts.Load())
			assert.Positive(t, st.Sleeps)
			assert.Positive(t, m.sleepingPosts.Load())
		})
	}
}

// TestLatchWakeups has waiters wait on their latches in the idle loop while
// setters set them at random moments (at once, soon, or once the waiter
// sleeps) and wake them when Set says so. A noise goroutine posts jobs that
// do not exist, moving the JEC under the sleepers' feet.
func TestLatchWakeups(t *testing.T) {
	rounds := 25_000
	if raceEnabled {
		rounds = 10_000
	}
	if testing.Short() {
		rounds /= 10
	}
	const waiters = 2
	s := New(waiters)
	latches := make([]Latch, waiters)
	var ready, done [waiters]chan int
	var finished [waiters]atomic.Int64 // rounds done, for the diagnosis
	var asleepSets atomic.Int64
	var stopNoise atomic.Bool

	withWatchdog(t, func() {
		var wg sync.WaitGroup
		for i := range waiters {
			ready[i] = make(chan int, 1)
			done[i] = make(chan int, 1)
			wg.Go(func() {
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				for r := range rounds {
					latches[i].Reset()
					ready[i] <- r
					st := s.StartLooking(i)
					for !latches[i].Probe() {
						s.NoWorkFound(&st, &latches[i], noInjected)
					}
					s.WorkFound(nothingQueued)
					finished[i].Store(int64(r + 1))
					done[i] <- r
				}
			})
			wg.Go(func() {
				rng := rand.New(rand.NewPCG(uint64(i), 2))
				for r := range rounds {
					if got := <-ready[i]; got != r {
						panic(fmt.Sprintf("waiter %d: round %d, want %d", i, got, r))
					}
					switch m := rng.IntN(8); {
					case m == 0:
					case m < 4:
						for range rng.IntN(2000) {
							pause(1)
						}
					default:
						// Noise can keep the waiter from ever sleeping
						// (every post sends it back to searching), so
						// wait for that only so long.
						deadline := time.Now().Add(2 * time.Millisecond)
						waitFor(func() bool { return s.isBlocked(i) || time.Now().After(deadline) })
						if s.isBlocked(i) {
							asleepSets.Add(1)
						}
					}
					if latches[i].Set() {
						s.WakeWorker(i)
					}
					<-done[i]
				}
			})
		}
		noise := make(chan struct{})
		go func() {
			defer close(noise)
			rng := rand.New(rand.NewPCG(9, 9))
			for !stopNoise.Load() {
				time.Sleep(time.Duration(rng.IntN(500)) * time.Microsecond)
				s.NewInternalJobs(1, rng.IntN(2) == 0)
			}
		}()
		wg.Wait()
		stopNoise.Store(true)
		<-noise
	}, func() string {
		str := fmt.Sprintf("counters %016x stats %+v\n", uint64(s.counters.load()), s.Stats())
		for i := range waiters {
			str += fmt.Sprintf("waiter %d: latch %d rounds done %d blocked %v\n",
				i, latches[i].state.Load(), finished[i].Load(), s.isBlocked(i))
		}
		return str
	})
	for i := range latches {
		assert.Equal(t, latchSet, latches[i].state.Load())
	}
	c := s.counters.load()
	assert.Equal(t, 0, c.inactive())
	assert.Equal(t, 0, c.sleeping())
	st := s.Stats()
	t.Logf("%d rounds x %d waiters, %d sleeps, %d wake-ups, %d sets of a sleeping waiter",
		rounds, waiters, st.Sleeps, st.Wakeups, asleepSets.Load())
	assert.Positive(t, st.Sleeps)
	assert.Positive(t, asleepSets.Load())
}
