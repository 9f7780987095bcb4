// Package pool is spindle's public face: Pool, Join, Scope, Spawn and Run.
//
// This package is not written yet.
package pool
