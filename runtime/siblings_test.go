package runtime

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestAWorkerRunsATasksSpawnedSiblingsInSpawnOrder walks a tree of three
// levels, four children per node, with a SpawnValue per child on one
// worker (no thief to reorder anything): the nodes must be visited in the
// serial program's order, first child first, the scope's body's children
// included. Scope.Spawn's closures keep the deque's order, newest first
// (siblings.go says why).
func TestAWorkerRunsATasksSpawnedSiblingsInSpawnOrder(t *testing.T) {
	r := newRegistry(t, Config{Workers: 1})
	type node struct{ id, depth int }
	const fanout, depth = 4, 3
	var serial []int
	var walk func(n node)
	walk = func(n node) {
		serial = append(serial, n.id)
		if n.depth < depth {
			for i := range fanout {
				walk(node{n.id*fanout + i + 1, n.depth + 1})
			}
		}
	}
	walk(node{0, 0})

	watchdog(t, func() {
		var visited []int
		var visit func(s *Scope, n node)
		visit = func(s *Scope, n node) {
			visited = append(visited, n.id)
			if n.depth < depth {
				for i := range fanout {
					SpawnValue("test spawn", s, visit, node{n.id*fanout + i + 1, n.depth + 1})
				}
			}
		}
		r.Scope("test scope", func(s *Scope) { visit(s, node{0, 0}) })
		assert.Equal(t, serial, visited)

		var closures []int
		r.Scope("test scope", func(s *Scope) {
			for i := range fanout {
				s.Spawn(func(*Scope) { closures = append(closures, i) })
			}
		})
		assert.Equal(t, []int{3, 2, 1, 0}, closures)

		// A closure between them ends a run: the value tasks after it
		// are reversed, and nothing before it moves.
		var mixed []string
		note := func(_ *Scope, name string) { mixed = append(mixed, name) }
		r.Scope("test scope", func(s *Scope) {
			SpawnValue("test spawn", s, note, "a")
			SpawnValue("test spawn", s, note, "b")
			s.Spawn(func(*Scope) { mixed = append(mixed, "closure") })
			SpawnValue("test spawn", s, note, "c")
			SpawnValue("test spawn", s, note, "d")
		})
		assert.Equal(t, []string{"c", "d", "closure", "b", "a"}, mixed)
	})
}
