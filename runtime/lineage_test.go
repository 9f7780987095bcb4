package runtime

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// mutualLineages builds the lineages of two workers that stole from each
// other k levels deep: worker a's entry at level i is a stolen join half
// whose forker was worker b at level i-1, and the other way round. Each
// entry's parent and inherited chains meet again one level down.
func mutualLineages(k int, group *Scope) (a, b *lineageEntry) {
	for i := range k {
		a, b = &lineageEntry{parent: a, inherit: b, mark: i}, &lineageEntry{parent: b, inherit: a, mark: i}
	}
	// The outermost entry of a: a task of group.
	root := a
	for root.parent != nil {
		root = root.parent
	}
	root.group = group
	return a, b
}

func TestLineageWalkVisitsEachEntryOnce(t *testing.T) {
	const k = 40 // 2^40 visits without the marks
	var group, other Scope
	a, b := mutualLineages(k, &group)
	watchdog(t, func() {
		var lw lineageWalk
		for _, tc := range []struct {
			name  string
			from  *lineageEntry
			group *Scope
			want  bool
		}{
			{"own chain", a, &group, true},
			{"through an inherited chain", b, &group, true},
			{"absent", a, &other, false},
			{"absent from the other", b, &other, false},
		} {
			got := lw.contains(tc.from, tc.group)
			assert.Equal(t, tc.want, got, tc.name)
			assert.LessOrEqual(t, lw.visits, 2*k, "%s: visits", tc.name)
			require.Empty(t, lw.seen, "%s: marks left", tc.name)
		}
	})
}

func TestLineageWalkWithoutInheritanceMakesNoMarks(t *testing.T) {
	var group Scope
	var e *lineageEntry
	for i := range 5 {
		e = &lineageEntry{parent: e, mark: i}
	}
	var lw lineageWalk
	assert.False(t, lw.contains(e, &group))
	assert.Equal(t, 5, lw.visits)
	assert.Nil(t, lw.seen, "a chain that inherits nothing needs no map")
}
