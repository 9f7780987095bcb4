package deque

import (
	"fmt"
	"math"
	"slices"
)

// spec is a sequential specification of a deque variant: what one
// goroutine would see, as a model for the real deques in sequential tests
// and, wrapped by specModel, for porcupine. Values are positive ints; 0
// stands for nil (pop) and Empty (steal). A push that reports false must
// leave the spec unchanged.
type spec interface {
	push(v int) bool
	pop() int
	steal() int
	len() int
	clone() spec
	key() string
}

// sliceSpec is the plain unbounded deque (ChaseLev, Locked, Bulk), oldest
// item first, plus Bulk's batch operations.
type sliceSpec struct{ items []int }

func (s *sliceSpec) push(v int) bool { s.items = append(s.items, v); return true }

func (s *sliceSpec) pop() int {
	n := len(s.items)
	if n == 0 {
		return 0
	}
	v := s.items[n-1]
	s.items = s.items[:n-1]
	return v
}

func (s *sliceSpec) steal() int {
	if len(s.items) == 0 {
		return 0
	}
	v := s.items[0]
	s.items = s.items[1:]
	return v
}

func (s *sliceSpec) len() int           { return len(s.items) }
func (s *sliceSpec) clone() spec        { return &sliceSpec{items: slices.Clone(s.items)} }
func (s *sliceSpec) key() string        { return fmt.Sprint(s.items) }
func (s *sliceSpec) pushBatch(vs []int) { s.items = append(s.items, vs...) }

// take removes and returns the k oldest items.
func (s *sliceSpec) take(k int) []int {
	v := slices.Clone(s.items[:k])
	s.items = s.items[k:]
	return v
}

// batchCount is how many items StealBatch (fraction 0) or StealFraction
// takes from n items into a buffer of max.
func batchCount(n, max int, fraction float64) int {
	if n == 0 || max == 0 {
		return 0
	}
	k := n
	if fraction > 0 {
		k = int(math.Ceil(min(fraction, 1) * float64(n)))
	}
	return min(k, n, max)
}

// abpSpec is ABP: full when bot reaches the capacity; bot goes back to 0
// when Pop empties the deque or finds it empty, not when thieves do.
type abpSpec struct {
	items         []int
	bot, capacity int
}

func (s *abpSpec) push(v int) bool {
	if s.bot == s.capacity {
		return false
	}
	s.items = append(s.items, v)
	s.bot++
	return true
}

func (s *abpSpec) pop() int {
	n := len(s.items)
	if n == 0 {
		s.bot = 0
		return 0
	}
	v := s.items[n-1]
	s.items = s.items[:n-1]
	if n == 1 {
		s.bot = 0
	} else {
		s.bot--
	}
	return v
}

func (s *abpSpec) steal() int {
	if len(s.items) == 0 {
		return 0
	}
	v := s.items[0]
	s.items = s.items[1:]
	return v
}

func (s *abpSpec) len() int { return len(s.items) }
func (s *abpSpec) clone() spec {
	return &abpSpec{items: slices.Clone(s.items), bot: s.bot, capacity: s.capacity}
}
func (s *abpSpec) key() string { return fmt.Sprint(s.items, s.bot) }

// bwosSpec is BWoS: every item remembers its logical block; the owner is
// in block owner at entry hi; thieves take only items of earlier blocks;
// the ring is full when the block the owner would move into still holds
// items.
type bwosSpec struct {
	items               []bwosItem
	owner               int
	hi, blocks, blockSz int
}

type bwosItem struct{ val, block int }

func newBWoSSpec(blocks, blockSize int) *bwosSpec {
	return &bwosSpec{blocks: blocks, blockSz: blockSize}
}

func (s *bwosSpec) push(v int) bool {
	if s.hi == s.blockSz {
		for _, it := range s.items {
			if it.block == s.owner+1-s.blocks {
				return false
			}
		}
		s.owner++
		s.hi = 0
	}
	s.items = append(s.items, bwosItem{v, s.owner})
	s.hi++
	return true
}

func (s *bwosSpec) pop() int {
	n := len(s.items)
	if n == 0 {
		return 0
	}
	switch s.items[n-1].block {
	case s.owner:
	case s.owner - 1:
		// The owner's block is empty: take the previous one back.
		s.owner--
		s.hi = s.blockSz
	default:
		return 0
	}
	s.hi--
	v := s.items[n-1].val
	s.items = s.items[:n-1]
	return v
}

func (s *bwosSpec) steal() int {
	if len(s.items) == 0 || s.items[0].block == s.owner {
		return 0
	}
	v := s.items[0].val
	s.items = s.items[1:]
	return v
}

func (s *bwosSpec) len() int { return len(s.items) }
func (s *bwosSpec) clone() spec {
	c := *s
	c.items = slices.Clone(s.items)
	return &c
}
func (s *bwosSpec) key() string { return fmt.Sprint(s.items, s.owner, s.hi) }
