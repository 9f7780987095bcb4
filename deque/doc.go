// Package deque holds work-stealing deques: Chase-Lev first, then the variants from the literature.
//
// This package is not written yet.
package deque
