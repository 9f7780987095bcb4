package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/spindle-go/spindle/examples/internal/cmdtest"
	"github.com/spindle-go/spindle/pool"
)

// tree is a directory built for a test, with what it holds.
type tree struct {
	t        *testing.T
	root     string
	contents map[string][]string // contents -> paths of the files holding them
	dirs     int                 // directories, the root included
	files    int
}

func newTree(t *testing.T) *tree {
	return &tree{t: t, root: t.TempDir(), contents: make(map[string][]string), dirs: 1}
}

// path turns a slash-separated name relative to the root into a path.
func (tr *tree) path(rel string) string { return filepath.Join(tr.root, filepath.FromSlash(rel)) }

// mkdir makes a directory and its missing parents, counting the new ones.
func (tr *tree) mkdir(rel string) {
	if rel == "." {
		return
	}
	if _, err := os.Stat(tr.path(rel)); err == nil {
		return
	}
	tr.mkdir(filepath.ToSlash(filepath.Dir(filepath.FromSlash(rel))))
	require.NoError(tr.t, os.Mkdir(tr.path(rel), 0o755))
	tr.dirs++
}

func (tr *tree) write(rel, contents string) {
	tr.mkdir(filepath.ToSlash(filepath.Dir(filepath.FromSlash(rel))))
	require.NoError(tr.t, os.WriteFile(tr.path(rel), []byte(contents), 0o644))
	tr.contents[contents] = append(tr.contents[contents], tr.path(rel))
	tr.files++
}

// symlink makes a symlink at rel pointing to target; the search must not
// follow it.
func (tr *tree) symlink(target, rel string) {
	if err := os.Symlink(target, tr.path(rel)); err != nil {
		tr.t.Skipf("cannot make symlinks here: %v", err)
	}
}

// wantGroups returns the groups of duplicates the tree holds, each as its
// sorted paths, in the order the search must report them: largest files
// first, then by first path.
func (tr *tree) wantGroups() [][]string {
	type g struct {
		size  int
		paths []string
	}
	var gs []g
	for c, paths := range tr.contents {
		if len(paths) >= 2 {
			gs = append(gs, g{len(c), slices.Sorted(slices.Values(paths))})
		}
	}
	slices.SortFunc(gs, func(a, b g) int {
		if a.size != b.size {
			return b.size - a.size
		}
		return strings.Compare(a.paths[0], b.paths[0])
	})
	var out [][]string
	for _, x := range gs {
		out = append(out, x.paths)
	}
	return out
}

func groupPaths(r result) [][]string {
	var out [][]string
	for _, g := range r.Groups {
		out = append(out, g.Paths)
	}
	return out
}

// sampleTree builds a tree with duplicates at several depths, empty files,
// files of one size with different contents, a file of a size of its own,
// a symlink to a file and one to a parent directory (a loop if followed).
func sampleTree(t *testing.T) *tree {
	tr := newTree(t)
	tr.write("a.txt", "hello\n")
	tr.write("sub/a-copy.txt", "hello\n")
	tr.write("sub/deep/deeper/a-again", "hello\n")
	tr.write("world.txt", "world\n") // hello's size, other contents

	big := make([]byte, 100_000)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range big {
		big[i] = byte(rng.Uint32())
	}
	tr.write("big.bin", string(big))
	tr.write("sub/deep/big-copy.bin", string(big))
	big[len(big)-1]++ // same size, differs in the last byte only
	tr.write("sub/big-almost.bin", string(big))

	tr.write("empty", "")
	tr.write("sub/empty", "")
	tr.write("sub/deep/deeper/empty", "")

	tr.write("only-one-of-this-size.txt", "nobody else is 35 bytes long here.\n")

	// Many directories, so that the walk has tasks to spread: ten groups
	// of three equal-sized files, two levels down.
	for i := range 30 {
		tr.write(fmt.Sprintf("gen/d%d/e%d/f", i%5, i), fmt.Sprintf("content %d", i%10))
	}
	tr.mkdir("sub/empty-dir")

	tr.symlink(tr.path("a.txt"), "link-to-a.txt")
	tr.symlink("..", "sub/loop")
	return tr
}

func TestSampleTree(t *testing.T) {
	tr := sampleTree(t)
	serial := findSerial(osFS{}, tr.root)

	assert.Equal(t, tr.wantGroups(), groupPaths(serial))
	assert.Equal(t, tr.files, serial.Files, "every regular file is counted")
	assert.Equal(t, tr.dirs, serial.Dirs, "every directory is listed once")
	assert.Equal(t, 2, serial.Symlinks, "symlinks are counted, not followed")
	assert.Zero(t, serial.Special)
	assert.Empty(t, serial.Problems)
	assert.Zero(t, serial.Unreadable)
	// All but the one file with a size of its own share their size.
	assert.Equal(t, tr.files-1, serial.Hashed)

	// The groups, spelled out for the hand-made files.
	require.Len(t, serial.Groups, 13)
	assert.Equal(t, []string{tr.path("big.bin"), tr.path("sub/deep/big-copy.bin")}, serial.Groups[0].Paths)
	assert.Equal(t, int64(100_000), serial.Groups[0].Size)
	last := serial.Groups[len(serial.Groups)-1]
	assert.Equal(t, []string{tr.path("empty"), tr.path("sub/deep/deeper/empty"), tr.path("sub/empty")}, last.Paths)
	assert.Contains(t, groupPaths(serial),
		[]string{tr.path("a.txt"), tr.path("sub/a-copy.txt"), tr.path("sub/deep/deeper/a-again")})

	for _, workers := range []int{1, 2, 4} {
		t.Run(fmt.Sprintf("workers=%d", workers), func(t *testing.T) {
			p := newPool(t, workers)
			for range 3 { // different schedules, one answer
				assert.True(t, sameFindings(serial, findParallel(p, osFS{}, tr.root)))
			}
		})
	}
}

func TestEmptyRoot(t *testing.T) {
	root := t.TempDir()
	r := findParallel(newPool(t, 2), osFS{}, root)
	assert.Equal(t, result{Dirs: 1}, r)
	var out bytes.Buffer
	printGroups(&out, r)
	assert.Equal(t, "no duplicates\n", out.String())
}

// faultyFS fails some calls of the real file system.
type faultyFS struct {
	badDir  string // ReadDir lists its first entry, then fails
	badFile string // Open fails
	growing string // reads one byte more than the file holds
}

var errInjected = errors.New("injected failure")

func (f faultyFS) ReadDir(dir string) ([]fs.DirEntry, error) {
	entries, err := os.ReadDir(dir)
	if dir == f.badDir && len(entries) > 0 {
		return entries[:1], &fs.PathError{Op: "readdirent", Path: dir, Err: errInjected}
	}
	return entries, err
}

func (f faultyFS) Open(path string) (io.ReadCloser, error) {
	switch path {
	case f.badFile:
		return nil, &fs.PathError{Op: "open", Path: path, Err: errInjected}
	case f.growing:
		r, err := os.Open(path)
		return struct {
			io.Reader
			io.Closer
		}{io.MultiReader(r, strings.NewReader("!")), r}, err
	}
	return os.Open(path)
}

func TestProblemsAreReportedNotLost(t *testing.T) {
	tr := newTree(t)
	tr.write("a", "same")
	tr.write("b", "same")
	tr.write("c", "same")
	tr.write("d", "sam!")
	tr.write("dir/x1", "listed")
	tr.write("dir/x2", "lost..")
	fsys := faultyFS{badDir: tr.path("dir"), badFile: tr.path("b"), growing: tr.path("d")}

	want := []string{
		tr.path("b") + ": cannot read: injected failure",
		tr.path("d") + ": skipped: size changed from 4 to 5 bytes during the search",
		tr.path("dir") + ": cannot list directory: injected failure",
	}
	check := func(t *testing.T, r result) {
		var got []string
		for _, p := range r.Problems {
			got = append(got, p.String())
		}
		assert.Equal(t, want, got)
		assert.Equal(t, [][]string{{tr.path("a"), tr.path("c")}}, groupPaths(r))
		assert.Equal(t, 5, r.Files, "the file listed before the failure is kept")
		assert.Equal(t, 2, r.Unreadable)
		assert.Equal(t, 2, r.Hashed)
	}
	serial := findSerial(fsys, tr.root)
	check(t, serial)
	parallel := findParallel(newPool(t, 2), fsys, tr.root)
	check(t, parallel)
	assert.True(t, sameFindings(serial, parallel))
}

func TestUnreadableFilesAndDirectories(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads files whatever their mode; TestProblemsAreReportedNotLost covers the failures")
	}
	tr := newTree(t)
	tr.write("a", "twin")
	tr.write("b", "twin")
	tr.write("locked/c", "twin")
	require.NoError(t, os.Chmod(tr.path("b"), 0))
	require.NoError(t, os.Chmod(tr.path("locked"), 0))
	t.Cleanup(func() { _ = os.Chmod(tr.path("locked"), 0o755) }) // so that TempDir can remove it

	r := findParallel(newPool(t, 2), osFS{}, tr.root)
	require.Len(t, r.Problems, 2)
	assert.Equal(t, tr.path("b")+": cannot read: permission denied", r.Problems[0].String())
	assert.Equal(t, tr.path("locked")+": cannot list directory: permission denied", r.Problems[1].String())
	assert.Empty(t, r.Groups, "a alone is left")
	assert.Equal(t, 2, r.Files)
	assert.Equal(t, 1, r.Unreadable)
}

func TestCheckRoot(t *testing.T) {
	tr := newTree(t)
	tr.write("file", "x")
	require.NoError(t, checkRoot(tr.root))
	assert.ErrorIs(t, checkRoot(tr.path("file")), errNotDir)
	assert.ErrorIs(t, checkRoot(tr.path("missing")), fs.ErrNotExist)
}

func TestPrintGroups(t *testing.T) {
	tr := newTree(t)
	tr.write("x/one", "0123456789")
	tr.write("y/two", "0123456789")
	var out bytes.Buffer
	r := findSerial(osFS{}, tr.root)
	printSummary(&out, r)
	printGroups(&out, r)
	assert.Equal(t, fmt.Sprintf(`2 files (20 bytes) in 3 directories; hashed 2 files (20 bytes) that share their size with another
1 group of duplicates: 1 file could go, freeing 10 bytes

10 bytes each, sha256 84d89877f0d4...:
  %s
  %s
`, tr.path("x/one"), tr.path("y/two")), out.String())
}

func TestFormatBytes(t *testing.T) {
	assert.Equal(t, "1 byte", formatBytes(1))
	assert.Equal(t, "1023 bytes", formatBytes(1023))
	assert.Equal(t, "1.0 KiB", formatBytes(1024))
	assert.Equal(t, "1.5 MiB", formatBytes(3<<19))
	assert.Equal(t, "2.0 GiB", formatBytes(2<<30))
}

func newPool(t *testing.T, workers int) *pool.Pool {
	p, err := pool.New(pool.WithWorkers(workers))
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, p.Close()) })
	return p
}

func TestDupfindCommand(t *testing.T) {
	tr := newTree(t)
	tr.write("a", "same")
	tr.write("sub/b", "same")
	tr.write("c", "other")
	root := regexp.QuoteMeta(tr.root)
	const ms = ` +\d+\.\d ms`
	found := []string{
		"",
		`3 files \(13 bytes\) in 2 directories; hashed 2 files \(8 bytes\) that share their size with another`,
		"",
		"1 group of duplicates: 1 file could go, freeing 4 bytes",
		"",
		`4 bytes each, sha256 [0-9a-f]{12}\.\.\.:`,
		"  " + regexp.QuoteMeta(tr.path("a")),
		"  " + regexp.QuoteMeta(tr.path("sub/b")),
	}
	cmdtest.Run(t, run, []cmdtest.Case{
		{Args: []string{"-root", tr.root, "-workers", "2"}, Lines: append([]string{
			"search of " + root + `, workers 2, GOMAXPROCS \d+, after one untimed warm-up run:`,
			"  serial" + ms,
			"  spindle" + ms + `  \d+\.\d\dx serial`,
		}, found...)},
		{Args: []string{"-root", tr.root, "-workers", "1", "-compare=false"}, Lines: append([]string{
			"search of " + root + `, workers 1, GOMAXPROCS \d+:`,
			"  spindle" + ms,
		}, found...)},
		{Args: []string{"-root", tr.root, "-serial"}, Lines: append([]string{
			"search of " + root + `, GOMAXPROCS \d+:`,
			"  serial" + ms,
		}, found...)},
		{Args: []string{"-root", tr.root, "-serial", "-compare"}, Status: 2, Error: "-serial and -compare exclude each other"},
		{Args: []string{"-root", tr.path("a")}, Status: 2, Error: "-root: " + tr.path("a") + ": not a directory"},
		{Args: []string{"-workers", "0"}, Status: 2, Error: "-workers 0: want at least 1"},
		{Args: []string{"extra"}, Status: 2, Error: `unexpected argument "extra" (give the directory with -root)`},
		{Args: []string{"-nosuchflag"}, Status: 2, Error: "flag provided but not defined"},
	})
}
