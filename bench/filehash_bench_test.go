package bench

import (
	"context"
	"crypto/sha256"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sync/errgroup"

	"github.com/spindle-go/spindle/pool"
)

// hashFiles is the directory hasher of errgroup's examples, as a program
// written for errgroup has it: list dir, then, under SetLimit(8), one task
// per file that reads it and hashes it (SHA-256), each storing its sum in
// its own cell. goFn is the group's Go; wait its Wait.
func hashFiles(dir string, sums [][32]byte, goFn func(func() error), wait func() error) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for i, e := range entries {
		goFn(func() error {
			data, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				return err
			}
			sums[i] = sha256.Sum256(data)
			return nil
		})
	}
	return wait()
}

// BenchmarkGroupFileHasher is an errgroup directory hasher ported
// unchanged: 1,000 files of 16 KB (in the page cache after the first
// run), one task per file under SetLimit(8), Go called from an ordinary
// goroutine; golang.org/x/sync/errgroup against pool.Group on the default
// pool, in blocks that take turns (againstErrgroup).
func BenchmarkGroupFileHasher(b *testing.B) {
	const files, size = 1000, 16 << 10
	dir := b.TempDir()
	r := rand.New(rand.NewPCG(1, 2))
	data := make([]byte, size)
	for i := range files {
		for j := range data {
			data[j] = byte(r.Uint32())
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%04d", i)), data, 0o600); err != nil {
			b.Fatal(err)
		}
	}
	sums := make([][32]byte, files)
	againstErrgroup(b, func() error {
		var g errgroup.Group
		g.SetLimit(limitWidth)
		return hashFiles(dir, sums, g.Go, g.Wait)
	}, func() error {
		g, _ := pool.Default().NewGroup(context.Background())
		g.SetLimit(limitWidth)
		return hashFiles(dir, sums, g.Go, g.Wait)
	})
}
