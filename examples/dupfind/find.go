package main

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/spindle-go/spindle/pool"
)

// fileSystem is what a search needs from the operating system. The
// command uses the real one (osFS); tests substitute failures.
type fileSystem interface {
	// ReadDir lists a directory; with an error it may still return the
	// entries read before it.
	ReadDir(dir string) ([]fs.DirEntry, error)
	// Open opens a regular file for reading.
	Open(path string) (io.ReadCloser, error)
}

type osFS struct{}

func (osFS) ReadDir(dir string) ([]fs.DirEntry, error) { return os.ReadDir(dir) }
func (osFS) Open(path string) (io.ReadCloser, error)   { return os.Open(path) }

// finder is the state of one search: counts, the files seen per size,
// the hashes computed so far and the problems met. Tasks share it under
// mu, which they take once per directory and once per hashed file, and
// never while they spawn.
//
// The walk and the hashing overlap: a file whose size nobody else has
// yet waits in its size class, unread; when a second file of that size
// turns up, both are hashed in tasks of their own, and every later file of
// that size too. A file with a unique size is never opened.
type finder struct {
	fs fileSystem
	// spawn runs f as a task of the search: s.Spawn on a pool.Scope for
	// the parallel search, a plain call for the serial one.
	spawn func(f func())

	mu     sync.Mutex
	res    result
	bySize map[int64]*sizeClass
	hashes []hashedFile
}

// sizeClass is what the finder knows about the files of one size.
type sizeClass struct {
	first string // the first file seen, until it is handed to a hash task
	n     int    // files seen
}

// hashedFile is a file read to the end, with its contents' digest.
type hashedFile struct {
	path string
	size int64
	sum  [sha256.Size]byte
}

// foundFile is a regular file met by the walk, before its size class is
// looked up.
type foundFile struct {
	path string
	size int64
}

// findParallel searches the tree under root with one task per directory
// and one per file to hash, all spawned on one scope of p, and returns
// when every task has finished.
func findParallel(p *pool.Pool, fsys fileSystem, root string) result {
	f := newFinder(fsys)
	p.Scope(func(s *pool.Scope) {
		// s stays valid for every task of the scope, so the tasks spawn
		// on it directly rather than through the handle each receives.
		f.spawn = func(task func()) { s.Spawn(func(*pool.Scope) { task() }) }
		f.walk(root)
	})
	return f.finish()
}

// findSerial searches the same way on the calling goroutine: every task
// runs as soon as it is spawned, depth first.
func findSerial(fsys fileSystem, root string) result {
	f := newFinder(fsys)
	f.spawn = func(task func()) { task() }
	f.walk(root)
	return f.finish()
}

func newFinder(fsys fileSystem) *finder {
	return &finder{fs: fsys, bySize: make(map[int64]*sizeClass)}
}

// walk lists dir, spawns a walk of each subdirectory, and passes the
// regular files to the size classes. Symlinks are counted and not
// followed (a link to a parent directory would loop, and a link to a file
// would show the file twice); other special files (pipes, sockets,
// devices) are counted and never opened, as opening a pipe can block
// forever. An entry whose information cannot be read is a problem, not a
// silent loss.
func (f *finder) walk(dir string) {
	entries, err := f.fs.ReadDir(dir)
	var (
		files           []foundFile
		problems        []problem
		links, specials int
	)
	if err != nil {
		// Keep what was listed before the error: it is still valid.
		problems = append(problems, problem{dir, "cannot list directory", err})
	}
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		switch t := e.Type(); {
		case t.IsDir():
			f.spawn(func() { f.walk(path) })
		case t&fs.ModeSymlink != 0:
			links++
		case !t.IsRegular():
			specials++
		default:
			info, err := e.Info()
			if err != nil {
				problems = append(problems, problem{path, "cannot stat", err})
				continue
			}
			if !info.Mode().IsRegular() { // replaced since the listing
				specials++
				continue
			}
			files = append(files, foundFile{path, info.Size()})
		}
	}

	var toHash []foundFile
	f.mu.Lock()
	f.res.Dirs++ // this directory; subdirectories count themselves
	f.res.Symlinks += links
	f.res.Special += specials
	f.res.Problems = append(f.res.Problems, problems...)
	for _, file := range files {
		f.res.Files++
		f.res.Bytes += file.size
		c := f.bySize[file.size]
		if c == nil {
			f.bySize[file.size] = &sizeClass{first: file.path, n: 1}
			continue
		}
		if c.n == 1 {
			toHash = append(toHash, foundFile{c.first, file.size})
			c.first = ""
		}
		c.n++
		toHash = append(toHash, file)
	}
	f.mu.Unlock()

	for _, file := range toHash {
		f.spawn(func() { f.hash(file) })
	}
}

// hash reads a file to the end and records its digest, or a problem if it
// cannot be read or its size changed since the walk saw it (its digest
// would then not describe a file of that size class).
func (f *finder) hash(file foundFile) {
	sum, n, err := f.digest(file.path)
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case err != nil:
		f.res.Unreadable++
		f.res.Problems = append(f.res.Problems, problem{file.path, "cannot read", err})
	case n != file.size:
		f.res.Unreadable++
		err := fmt.Errorf("size changed from %d to %d bytes during the search", file.size, n)
		f.res.Problems = append(f.res.Problems, problem{file.path, "skipped", err})
	default:
		f.res.Hashed++
		f.res.HashedBytes += n
		f.hashes = append(f.hashes, hashedFile{file.path, file.size, sum})
	}
}

// digest returns the SHA-256 of a file's contents and their length.
func (f *finder) digest(path string) (sum [sha256.Size]byte, n int64, err error) {
	r, err := f.fs.Open(path)
	if err != nil {
		return sum, 0, err
	}
	h := sha256.New()
	n, err = io.Copy(h, r)
	if cerr := r.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return sum, n, err
	}
	h.Sum(sum[:0])
	return sum, n, nil
}

// finish groups the hashed files and puts the result in its deterministic
// order. It runs after every task has finished.
func (f *finder) finish() result {
	f.res.Groups = groupDuplicates(f.hashes)
	sortProblems(f.res.Problems)
	return f.res
}

// errNotDir is returned for a root that is not a directory.
var errNotDir = errors.New("not a directory")

// checkRoot makes sure root names a directory. A symlink given as the
// root is followed, as find -H does: it is what the user asked for.
func checkRoot(root string) error {
	info, err := os.Stat(root)
	if err != nil {
		return err
	}
	if !info.IsDir() {
		return fmt.Errorf("%s: %w", root, errNotDir)
	}
	return nil
}
