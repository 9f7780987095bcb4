// Package runtime is spindle's engine: the worker threads, their deques, job records, latches, joins, scopes and the injector. Users call it through packages pool and forkjoin.
//
// This package is not written yet.
package runtime
