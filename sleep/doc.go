// Package sleep implements the jobs-event-counter sleep protocol that lets idle workers cost nothing and wake within microseconds.
//
// This package is not written yet.
package sleep
