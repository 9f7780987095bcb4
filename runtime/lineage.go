package runtime

// Lineage: which groups' tasks a piece of code runs inside, across steals.
//
// A wait for a group from inside one of the group's own tasks waits for
// itself. On the worker that runs the task the task is on the worker's
// stack, but a join half the task forked may run on a thief, whose stack
// does not show it: the half's Group.Wait would wait for the task, which
// waits for the half. So every worker keeps its lineage, a chain of
// entries innermost first: one per group task on its stack (group), and
// one per stolen join half it runs (inherit: the lineage of the forker at
// the fork). InOwnTask walks the chain and every inherited chain.
//
// Forks store nothing for it. A join half gets its lineage when it is
// published (publishOldest), the rare event: the entries that began at or
// below its frame's depth (mark, as isolation contexts record theirs) are
// the ones whose code forked it. That entry and the ones below it cannot
// end while the half runs, as each is a frame below the fork that waits
// for the half; so a thief may follow the pointers while it runs the half,
// although the forker reuses its entries (one per stack depth) once they
// end. A job's lineage is valid only between its publication and its
// end; it is set again at every publication.
type lineageEntry struct {
	group   *Scope        // the group whose task this is, or nil
	inherit *lineageEntry // for a stolen join half: its forker's lineage
	parent  *lineageEntry // the entry below on this worker's stack
	mark    int           // the worker's depth when the entry began
}

// enterLineage pushes an entry for a task of group g (inherit nil) or a
// stolen join half of lineage inherit (g nil).
func (w *Worker) enterLineage(g *Scope, inherit *lineageEntry) {
	if w.lineageDepth == len(w.lineageEntries) {
		w.lineageEntries = append(w.lineageEntries, new(lineageEntry))
	}
	e := w.lineageEntries[w.lineageDepth]
	w.lineageDepth++
	e.group, e.inherit, e.parent, e.mark = g, inherit, w.lineage, w.depth
	w.lineage = e
}

// leaveLineage pops the innermost entry.
func (w *Worker) leaveLineage() {
	e := w.lineage
	w.lineage = e.parent
	w.lineageDepth--
	e.group, e.inherit, e.parent = nil, nil, nil
}

// lineageAt returns the lineage of the code that forked the job of frame
// i: the innermost entry that began at or below depth i.
func (w *Worker) lineageAt(i int) *lineageEntry {
	e := w.lineage
	for e != nil && e.mark > i {
		e = e.parent
	}
	return e
}

// contains reports whether the chain from e holds a task of group s.
func (e *lineageEntry) contains(s *Scope) bool {
	for ; e != nil; e = e.parent {
		if e.group == s || e.inherit != nil && e.inherit.contains(s) {
			return true
		}
	}
	return false
}
