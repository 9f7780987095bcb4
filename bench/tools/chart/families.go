package main

import (
	"slices"
	"strconv"
	"strings"
)

// family is one chart: the workloads that answer the same question, one
// panel each, drawn on a common value axis.
type family struct {
	name        string // the chart is written to chart-<name>.svg
	titleFormat string // "{n}" stands for the first panel's n, with thousands separators
	panels      []panelSpec
	// labels overrides the default labels of some runtimes, where the
	// family's workloads use another API of them (Rayon's par_iter
	// rather than join).
	labels map[string]string
}

type panelSpec struct {
	workload string
	heading  string // above the panel when the chart has several; "" for none
}

// families are the charts drawn by default, in this order.
var families = []family{
	{
		name:        "fork",
		titleFormat: "Cost of a fork: fib({n}), a fork at every level, no cutoff",
		panels:      []panelSpec{{workload: "fib"}},
	},
	{
		name:        "quicksort",
		titleFormat: "Quicksort of {n} int64, both halves of every partition forked",
		panels:      []panelSpec{{workload: "quicksort"}},
	},
	{
		name:        "uts",
		titleFormat: "Unbalanced Tree Search: every node a task, a SHA-1 hash per node",
		panels: []panelSpec{
			{"uts-t1", "T1: geometric tree, 4,130,071 nodes, 10 deep"},
			{"uts-t3", "T3: binomial tree, 4,112,897 nodes, 1,572 deep"},
		},
	},
	{
		name:        "iters",
		titleFormat: "Parallel iterators over {n} items",
		panels: []panelSpec{
			{"filter", "filter: keep the items with x % 3 != 0, in order"},
			{"find-first", "find-first: index of the first item equal to the one at 90%"},
			{"map-sum", "map-sum: wrapping sum of (x ^ (x >> 17)) * 31"},
			{"sort-stable", "sort-stable: stable sort of (x % 1000, index) pairs by key"},
		},
		labels: map[string]string{
			"go-spindle":    "spindle forkjoin",
			"rust-rayon":    "Rayon par_iter",
			"java-forkjoin": "Java parallel streams",
		},
	},
}

// familyNames lists the default charts, for the -charts flag.
func familyNames() string {
	var names []string
	for _, f := range families {
		names = append(names, f.name)
	}
	return strings.Join(names, ",")
}

// lookupFamily returns the family of that name, or a chart of the one
// workload of that name.
func lookupFamily(name string) family {
	for _, f := range families {
		if f.name == name {
			return f
		}
	}
	return family{name: name, titleFormat: name + " (n={n})", panels: []panelSpec{{workload: name}}}
}

// runtimeOrder is the order of the known runtimes down a panel, spindle's
// first; others follow in the order of the input.
var runtimeOrder = []string{
	"go-spindle-call", "go-spindle-do", "go-spindle-spawnmany", "go-spindle-spawnarg", "go-spindle-spawn",
	"go-spindle-spawn-unlocked", "go-spindle-join", "go-spindle-join-unlocked",
	"go-spindle", "go-lazy-fork-floor", "go-public-part-floor", "go-public-floor",
	"go-closure-floor", "go-spindle-serial",
	"rust-rayon", "rust-rayon-scope", "java-forkjoin", "cpp-tbb", "cpp-openmp",
	"go-waitgroup", "go-errgroup",
}

// labels are the names the charts show for the known runtimes.
var labels = map[string]string{
	"go-spindle-call":           "spindle forkjoin.Call",
	"go-spindle-do":             "spindle forkjoin.Do",
	"go-spindle-join":           "spindle pool.Join (closures)",
	"go-spindle-spawn":          "spindle Scope.Spawn",
	"go-spindle-spawnmany":      "spindle Scope.SpawnMany",
	"go-spindle-spawn-unlocked": "spindle Scope.Spawn, unlocked workers",
	"go-spindle-join-unlocked":  "spindle pool.Join, unlocked workers",
	"go-spindle-serial":         "Go serial, no allocation",
	"go-spindle":                "spindle",
	"go-closure-floor":          "Go closure allocations only",
	"go-spindle-spawnarg":       "spindle forkjoin.Spawn",
	"go-lazy-fork-floor":        "Go lazy fork, no runtime",
	"go-public-floor":           "Go deque, a task per child, no runtime",
	"go-public-part-floor":      "Go deque, a task per node, no runtime",
	"rust-rayon":                "Rayon join",
	"rust-rayon-scope":          "Rayon scope.spawn",
	"java-forkjoin":             "Java ForkJoinPool",
	"cpp-tbb":                   "C++ oneTBB",
	"cpp-openmp":                "C++ OpenMP tasks",
	"go-waitgroup":              "goroutine + WaitGroup",
	"go-errgroup":               "Go errgroup",
}

// aliases are runtimes drawn in the row of another: go-closure-floor2,
// the name of the closure floor's 2-thread row in runs before
// bench/cmd/peers printed go-closure-floor at every thread count, is the
// 2-thread bar of the floor's row.
var aliases = map[string]string{
	"go-closure-floor2": "go-closure-floor",
}

func rowName(runtime string) string {
	if a, ok := aliases[runtime]; ok {
		return a
	}
	return runtime
}

func (f family) label(runtime string) string {
	if l, ok := f.labels[runtime]; ok {
		return l
	}
	if l, ok := labels[runtime]; ok {
		return l
	}
	return runtime
}

// isSpindle says whether a row is one of spindle's, drawn in bold.
func isSpindle(runtime string) bool {
	return strings.HasPrefix(runtime, "go-spindle") && runtime != "go-spindle-serial"
}

// orderRuntimes puts the known runtimes in runtimeOrder, the others after
// them in the order given.
func orderRuntimes(input []string) []string {
	var out []string
	for _, rt := range runtimeOrder {
		if slices.Contains(input, rt) {
			out = append(out, rt)
		}
	}
	for _, rt := range input {
		if !slices.Contains(runtimeOrder, rt) {
			out = append(out, rt)
		}
	}
	return out
}

// fillN puts a workload size into a title: "10000000" becomes
// "10,000,000", and an unknown size "n".
func fillN(title, size string) string {
	if size == "" {
		size = "n"
	} else if v, err := strconv.Atoi(size); err == nil {
		size = thousands(v)
	}
	return strings.ReplaceAll(title, "{n}", size)
}
