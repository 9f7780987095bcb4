package bench

import (
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spindle-go/spindle/internal/experiment"
	xorshift64 "github.com/spindle-go/spindle/internal/xorshift"
	"github.com/spindle-go/spindle/pool"
)

// Priority scenarios, after the experiments of Joshi and Hegde on
// priority-aware work stealing (Imam and Sarkar's scheme): many small
// tasks of priority levels 0..pool.MaxPriority, spawned in an order that
// does not favour the urgent ones, and the question is how soon the most
// urgent tasks are done. See the package documentation for the scenarios.

// PriorityTask is one task of a scenario: its level and its busy work, in
// rounds of Spin.
type PriorityTask struct {
	Level int
	Spin  int
}

// SpawnMode says how a scenario's spawner tasks spawn their share of the
// tasks.
type SpawnMode int

const (
	// SpawnEach: one Scope.SpawnPriority per task, in the order of
	// PriorityScenario.Tasks, so levels come interleaved.
	SpawnEach SpawnMode = iota
	// SpawnManyPerLevel: one Scope.SpawnManyPriority per level, level 0
	// first (the least urgent batch is queued first).
	SpawnManyPerLevel
)

// PriorityScenario is a set of tasks and the way they are spawned.
//
// RunPriority spawns len(Spawners) spawner tasks, at MaxPriority so that
// every task is queued early, from the body of a scope; spawner k spawns
// the next Spawners[k] tasks of Tasks (from inside a task, so they land on
// the deques of the worker that runs the spawner) as Mode says.
type PriorityScenario struct {
	Name     string
	Tasks    []PriorityTask
	Spawners []int
	Mode     SpawnMode

	// byLevel[k][l] are the indices of spawner k's tasks of level l, for
	// SpawnManyPerLevel.
	byLevel [][pool.MaxPriority + 1][]int32
}

// HighShare is the share of the scenario's busy work in tasks of level
// MaxPriority: where HighRatio would be with perfect priorities, perfect
// balance and no overhead.
func (sc *PriorityScenario) HighShare() float64 {
	var high, all float64
	for _, t := range sc.Tasks {
		all += float64(t.Spin)
		if t.Level == pool.MaxPriority {
			high += float64(t.Spin)
		}
	}
	if all == 0 {
		return 0
	}
	return high / all
}

// Levels returns how many tasks the scenario has at each level.
func (sc *PriorityScenario) Levels() [pool.MaxPriority + 1]int {
	var n [pool.MaxPriority + 1]int
	for _, t := range sc.Tasks {
		n[t.Level]++
	}
	return n
}

// PrioritySpawners is how many spawner tasks the scenarios use.
const PrioritySpawners = 4

// unequalWeights are the shares of the spawners of the "unequal" scenario.
var unequalWeights = [PrioritySpawners]int{27, 9, 3, 1}

// PriorityScenarios builds the scenarios for tasks tasks of micros
// microseconds of busy work (on average), levels and times drawn from
// xorshift64 seeded with seed:
//
//   - equal: every task micros, levels uniform over 0..MaxPriority, four
//     spawners of a quarter of the tasks each.
//   - random: task times uniform over (0, 2*micros], otherwise as equal.
//   - skewed: levels 0, 1, 2, 3 in proportions 70%, 20%, 8%, 2%,
//     otherwise as equal.
//   - unequal: the tasks of equal, but the four spawners spawn 27/40,
//     9/40, 3/40 and 1/40 of them, so that one worker starts with most of
//     the work.
//   - bulk: the tasks of equal, each spawner spawning its share with one
//     SpawnManyPriority per level, level 0 first.
func PriorityScenarios(tasks int, micros float64, seed uint64) []*PriorityScenario {
	if tasks < 0 || micros < 0 {
		panic(fmt.Sprintf("bench.PriorityScenarios(%d, %g): negative size", tasks, micros))
	}
	unit := max(1, int(math.Round(micros*SpinPerMicro())))
	uniformLevel := func(r *xorshift) int { return int(r.next() % (pool.MaxPriority + 1)) }
	skewedLevel := func(r *xorshift) int {
		switch u := r.next() % 100; {
		case u < 70:
			return 0
		case u < 90:
			return 1
		case u < 98:
			return 2
		}
		return 3
	}
	gen := func(salt uint64, level func(*xorshift) int, spin func(*xorshift) int) []PriorityTask {
		r := newXorshift(seed + salt*0x9E3779B97F4A7C15)
		ts := make([]PriorityTask, tasks)
		for i := range ts {
			ts[i].Level = level(r)
			ts[i].Spin = spin(r)
		}
		return ts
	}
	fixed := func(*xorshift) int { return unit }
	random := func(r *xorshift) int { return 1 + int(r.next()%uint64(2*unit)) }

	equalTasks := gen(1, uniformLevel, fixed)
	equal := split(tasks, []int{1, 1, 1, 1})
	scs := []*PriorityScenario{
		{Name: "equal", Tasks: equalTasks, Spawners: equal},
		{Name: "random", Tasks: gen(2, uniformLevel, random), Spawners: equal},
		{Name: "skewed", Tasks: gen(3, skewedLevel, fixed), Spawners: equal},
		{Name: "unequal", Tasks: equalTasks, Spawners: split(tasks, unequalWeights[:])},
		{Name: "bulk", Tasks: equalTasks, Spawners: equal, Mode: SpawnManyPerLevel},
	}
	for _, sc := range scs {
		sc.index()
	}
	return scs
}

// NewPriorityScenario makes a scenario of the given tasks and spawner
// shares (which must add up to len(tasks)), for tests and experiments.
func NewPriorityScenario(name string, tasks []PriorityTask, spawners []int, mode SpawnMode) *PriorityScenario {
	sum := 0
	for _, n := range spawners {
		if n < 0 {
			panic("bench.NewPriorityScenario: negative spawner share")
		}
		sum += n
	}
	if sum != len(tasks) {
		panic(fmt.Sprintf("bench.NewPriorityScenario: spawners spawn %d tasks, want %d", sum, len(tasks)))
	}
	for _, t := range tasks {
		if t.Level < 0 || t.Level > pool.MaxPriority {
			panic(fmt.Sprintf("bench.NewPriorityScenario: level %d out of range", t.Level))
		}
	}
	sc := &PriorityScenario{Name: name, Tasks: tasks, Spawners: spawners, Mode: mode}
	sc.index()
	return sc
}

// split divides n into len(weights) parts proportional to weights, the
// rounding left-over going to the first.
func split(n int, weights []int) []int {
	total := 0
	for _, w := range weights {
		total += w
	}
	parts := make([]int, len(weights))
	left := n
	for i := len(weights) - 1; i > 0; i-- {
		parts[i] = n * weights[i] / total
		left -= parts[i]
	}
	parts[0] = left
	return parts
}

func (sc *PriorityScenario) index() {
	sc.byLevel = make([][pool.MaxPriority + 1][]int32, len(sc.Spawners))
	lo := 0
	for k, n := range sc.Spawners {
		for i := lo; i < lo+n; i++ {
			l := sc.Tasks[i].Level
			sc.byLevel[k][l] = append(sc.byLevel[k][l], int32(i))
		}
		lo += n
	}
}

// PriorityPolicies are the policies the benchmarks compare, the
// priority-oblivious run first.
var PriorityPolicies = []pool.PriorityPolicy{
	experiment.PriorityOblivious,
	pool.PriorityScanAll,
	pool.PrioritySample,
	pool.PriorityStrict,
}

// PriorityResult is what one run of a scenario measured.
type PriorityResult struct {
	// Total is the scenario's wall time: from just before the scope
	// starts until it has returned, on a worker of the pool.
	Total time.Duration
	// High is when the last task of level MaxPriority finished, from the
	// same start (0 if there is none).
	High time.Duration
	// LevelDone[l] is when the last task of level l finished.
	LevelDone [pool.MaxPriority + 1]time.Duration
	// Inversions and StealsByLevel are the pool's Stats counts during the
	// run (spawners included).
	Inversions    uint64
	StealsByLevel [pool.MaxPriority + 1]uint64
}

// HighRatio is High / Total: the fraction of the run the most urgent
// tasks waited for, to compare with PriorityScenario.HighShare.
func (r PriorityResult) HighRatio() float64 {
	if r.Total <= 0 {
		return 0
	}
	return float64(r.High) / float64(r.Total)
}

// priorityRun is the shared state of one run of a scenario.
type priorityRun struct {
	sc    *PriorityScenario
	start time.Time
	// last[l] is the latest finish of a level-l task, in nanoseconds
	// since start.
	last [pool.MaxPriority + 1]atomic.Int64
	ran  atomic.Int64
}

func (r *priorityRun) task(i int) {
	t := r.sc.Tasks[i]
	spinSink(Spin(t.Spin, uint64(i)+1))
	d := int64(time.Since(r.start))
	last := &r.last[t.Level]
	for {
		old := last.Load()
		if d <= old || last.CompareAndSwap(old, d) {
			break
		}
	}
	r.ran.Add(1)
}

// spawn is spawner k's body: it spawns tasks [lo, lo+Spawners[k]).
func (r *priorityRun) spawn(s *pool.Scope, k, lo int) {
	sc := r.sc
	if sc.Mode == SpawnManyPerLevel {
		for l := range pool.MaxPriority + 1 {
			idx := sc.byLevel[k][l]
			if len(idx) > 0 {
				s.SpawnManyPriority(l, len(idx), func(_ *pool.Scope, j int) { r.task(int(idx[j])) })
			}
		}
		return
	}
	for i := lo; i < lo+sc.Spawners[k]; i++ {
		s.SpawnPriority(sc.Tasks[i].Level, func(*pool.Scope) { r.task(i) })
	}
}

// RunPriority runs sc once on p, which must be idle (the Stats counts are
// the pool's), from outside the pool: the scope runs inside p.Run and the
// times are taken on the worker. It returns an error if some task did not
// run exactly once.
func RunPriority(p *pool.Pool, sc *PriorityScenario) (PriorityResult, error) {
	r := &priorityRun{sc: sc}
	before := p.Stats()
	var total time.Duration
	p.Run(func() {
		r.start = time.Now()
		p.Scope(func(s *pool.Scope) {
			lo := 0
			for k, n := range sc.Spawners {
				first := lo
				s.SpawnPriority(pool.MaxPriority, func(s *pool.Scope) { r.spawn(s, k, first) })
				lo += n
			}
		})
		total = time.Since(r.start)
	})
	after := p.Stats()
	res := PriorityResult{Total: total, Inversions: after.Inversions - before.Inversions}
	for l := range res.LevelDone {
		res.LevelDone[l] = time.Duration(r.last[l].Load())
		res.StealsByLevel[l] = after.StealsByLevel[l] - before.StealsByLevel[l]
	}
	res.High = res.LevelDone[pool.MaxPriority]
	if n := r.ran.Load(); n != int64(len(sc.Tasks)) {
		return res, fmt.Errorf("scenario %s: %d tasks ran, want %d", sc.Name, n, len(sc.Tasks))
	}
	return res, nil
}

// Spin runs n rounds of xorshift64 from x (which must not be 0) and
// returns the result: busy work that touches no memory and that the
// compiler cannot drop. SpinPerMicro says how many rounds take a
// microsecond.
//
//go:noinline
func Spin(n int, x uint64) uint64 {
	for range n {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	return x
}

// spinZero is written only if Spin returns 0, which it never does from a
// non-zero start; the test keeps Spin's result alive.
var spinZero atomic.Uint64

func spinSink(x uint64) {
	if x == 0 {
		spinZero.Add(1)
	}
}

var (
	spinOnce     sync.Once
	spinPerMicro float64
)

// SpinPerMicro returns how many rounds of Spin take a microsecond on this
// machine: the best of 16 timings of 2^16 rounds spread over about 20 ms
// (a noisy machine has slow spells), measured once per process.
func SpinPerMicro() float64 {
	spinOnce.Do(func() {
		const rounds = 1 << 16
		best := time.Duration(math.MaxInt64)
		for range 16 {
			start := time.Now()
			spinSink(Spin(rounds, Seed))
			best = min(best, time.Since(start))
			time.Sleep(time.Millisecond)
		}
		spinPerMicro = rounds / max(float64(best.Nanoseconds())/1e3, 1e-3)
	})
	return spinPerMicro
}

// xorshift is Marsaglia's xorshift64 (shifts 13, 7, 17), as Fill uses.
type xorshift struct{ x uint64 }

func newXorshift(seed uint64) *xorshift {
	if seed == 0 {
		seed = Seed
	}
	return &xorshift{seed}
}

func (r *xorshift) next() uint64 { return xorshift64.Next(&r.x) }
