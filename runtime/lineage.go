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
// the fork). InOwnTask walks the chain and every inherited chain, each
// entry once (lineageWalk).
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

// lineageWalk is a worker's search of lineages (InOwnTask), kept for
// reuse. A lineage is not a tree: two workers that steal from each other
// k levels deep build entries whose parent and inherit chains meet again
// and again, and a walk that followed both without a mark would visit
// some entries 2^k times. So a walk marks what it visited (seen) and
// visits every entry it can reach once; visits counts them, for tests.
type lineageWalk struct {
	seen   map[*lineageEntry]struct{}
	stack  []*lineageEntry
	visits int
}

// contains reports whether the lineage from e, following parents and
// inherited lineages, holds a task of group s. Most lineages inherit
// nothing (no stolen join half below the caller): those it walks without
// a mark.
func (lw *lineageWalk) contains(e *lineageEntry, s *Scope) bool {
	lw.visits = 0
	inherits := false
	for x := e; x != nil; x = x.parent {
		lw.visits++
		if x.group == s {
			return true
		}
		inherits = inherits || x.inherit != nil
	}
	if !inherits {
		return false
	}
	if lw.seen == nil {
		lw.seen = make(map[*lineageEntry]struct{})
	}
	defer func() {
		clear(lw.seen)
		clear(lw.stack)
		lw.stack = lw.stack[:0]
	}()
	lw.visits = 0
	lw.stack = append(lw.stack[:0], e)
	for n := len(lw.stack); n > 0; n = len(lw.stack) {
		x := lw.stack[n-1]
		lw.stack = lw.stack[:n-1]
		// Down the parents until an entry visited before: the rest of
		// that chain was visited with it.
		for ; x != nil; x = x.parent {
			if _, ok := lw.seen[x]; ok {
				break
			}
			lw.seen[x] = struct{}{}
			lw.visits++
			if x.group == s {
				return true
			}
			if x.inherit != nil {
				lw.stack = append(lw.stack, x.inherit)
			}
		}
	}
	return false
}
