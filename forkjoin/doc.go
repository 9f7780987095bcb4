// Package forkjoin offers typed, allocation-free forks (Call, Do) and parallel algorithms (For, Map, Reduce, Sort) on spindle pools.
//
// This package is not written yet.
package forkjoin
