// Package bench holds spindle's benchmarks against serial code, goroutines and peer runtimes.
//
// This package is not written yet.
package bench
