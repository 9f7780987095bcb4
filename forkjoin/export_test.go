package forkjoin

import "cmp"

// SortCutoff is Sort with a given serial cutoff: small cutoffs make small
// inputs go through the parallel partitioning that Sort keeps for large
// ones.
func SortCutoff[E cmp.Ordered](s []E, cutoff int) { sortOrdered(s, cutoff) }

// SortFuncCutoff is SortFunc with a given serial cutoff.
func SortFuncCutoff[E any](s []E, cmp func(a, b E) int, cutoff int) { sortFunc(s, cmp, cutoff) }

// SortCutoffDefault is the cutoff Sort and SortFunc use.
const SortCutoffDefault = sortCutoff
