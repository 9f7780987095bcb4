package main

import (
	"math/rand/v2"

	"github.com/spindle-go/spindle/pool"
)

// fam is an operation family: one public API family and its checks.
type fam int

const (
	famJoinSum fam = iota
	famScope
	famCross
	famDetached
	famFor
	famMapReduce
	famSort
	famSortFunc
	famSortStable
	famMinMax
	famFind
	famFilter
	famScan
	famGroupErrors
	famGroupLimit
	famGroupCancel
	famGroupNested
	famGroupWaiters
	famForErr
	famMapErr
	famFuture
	famBlock
	famIsolate
	famBlocking
	famClose
	famCallers
	famCount
)

// family is one row of the operation table. weight is the family's share
// of the operations drawn (every family should reach about the same
// count in a run, whatever its cost, so that none goes untested).
type family struct {
	name   string
	weight int
	run    func(s *soak, r *rand.Rand, p *pool.Pool)
}

// families is the operation table. It is filled by init: its functions
// report violations under the families' names, which a package-level
// initializer could not refer to.
var families [famCount]family

func init() {
	families = [famCount]family{
		famJoinSum:      {"joinsum", 1, (*soak).joinSum},
		famScope:        {"scope", 1, (*soak).scope},
		famCross:        {"cross-pool", 1, (*soak).cross},
		famDetached:     {"detached", 1, (*soak).detached},
		famFor:          {"for", 1, (*soak).forRange},
		famMapReduce:    {"mapreduce", 1, (*soak).mapReduce},
		famSort:         {"sort", 1, (*soak).sort},
		famSortFunc:     {"sortfunc", 1, (*soak).sortFunc},
		famSortStable:   {"sortstable", 1, (*soak).sortStable},
		famMinMax:       {"minmax", 1, (*soak).minMax},
		famFind:         {"find", 1, (*soak).find},
		famFilter:       {"filter", 1, (*soak).filter},
		famScan:         {"scan", 1, (*soak).scan},
		famGroupErrors:  {"group-errors", 1, (*soak).groupErrors},
		famGroupLimit:   {"group-limit", 1, (*soak).groupLimit},
		famGroupCancel:  {"group-cancel", 1, (*soak).groupCancel},
		famGroupNested:  {"group-nested", 1, (*soak).groupNested},
		famGroupWaiters: {"group-waiters", 1, (*soak).groupWaiters},
		famForErr:       {"forerr", 1, (*soak).forErr},
		famMapErr:       {"maperr", 1, (*soak).mapErr},
		famFuture:       {"future", 1, (*soak).future},
		famBlock:        {"block", 1, (*soak).block},
		famIsolate:      {"isolate", 1, (*soak).isolate},
		famBlocking:     {"blocking", 1, (*soak).blocking},
		famClose:        {"close", 1, (*soak).closeRace},
		famCallers:      {"callers", 1, (*soak).manyCallers},
	}
	for _, f := range families {
		totalWeight += f.weight
	}
}

// totalWeight is the sum of the families' weights.
var totalWeight int

// pickFamily draws a family by weight.
func pickFamily(r *rand.Rand) fam {
	x := r.IntN(totalWeight)
	for f := range famCount {
		if x < families[f].weight {
			return f
		}
		x -= families[f].weight
	}
	panic("unreachable")
}

// op runs one operation of family f on a random pool, from the calling
// goroutine (never a worker).
func (s *soak) op(r *rand.Rand, f fam) {
	families[f].run(s, r, s.pools[r.IntN(len(s.pools))])
	s.fams[f].ops.Add(1)
}
