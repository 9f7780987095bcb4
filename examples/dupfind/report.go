package main

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"reflect"
	"slices"
	"strings"
)

// result is what a search found. Nothing is lost on the way: every entry
// under the root is counted once, as a directory (Dirs, the root
// included), a symlink (Symlinks), another special file (Special), a
// regular file (Files), or a problem "cannot stat"; and every one of Files
// was hashed (Hashed), or left unread because no other file has its size,
// or is Unreadable with a problem saying why.
type result struct {
	Groups      []group // duplicates, largest files first
	Dirs        int
	Files       int
	Bytes       int64 // total size of Files
	Hashed      int   // files read, because another file has their size
	HashedBytes int64
	Unreadable  int
	Symlinks    int // not followed
	Special     int // pipes, sockets, devices: never opened
	Problems    []problem
}

// group is a set of at least two files with the same contents.
type group struct {
	Size  int64
	Sum   [sha256.Size]byte
	Paths []string // sorted
}

// problem is an entry the search could not handle, and why.
type problem struct {
	Path string
	What string // "cannot list directory", "cannot read", ...
	Err  error
}

// String says what happened to which path, with the cause of the error
// only: an *fs.PathError's path and operation would repeat the rest.
func (p problem) String() string {
	cause := p.Err
	var pe *fs.PathError
	if errors.As(cause, &pe) {
		cause = pe.Err
	}
	return fmt.Sprintf("%s: %s: %v", p.Path, p.What, cause)
}

// groupDuplicates returns the groups of files with the same size and
// digest, the largest files first, groups of one size ordered by their
// first path.
func groupDuplicates(files []hashedFile) []group {
	slices.SortFunc(files, func(a, b hashedFile) int {
		return cmp.Or(cmp.Compare(a.size, b.size), bytes.Compare(a.sum[:], b.sum[:]), strings.Compare(a.path, b.path))
	})
	var groups []group
	for i := 0; i < len(files); {
		j := i + 1
		for j < len(files) && files[j].size == files[i].size && files[j].sum == files[i].sum {
			j++
		}
		if j-i >= 2 {
			g := group{Size: files[i].size, Sum: files[i].sum}
			for _, f := range files[i:j] {
				g.Paths = append(g.Paths, f.path)
			}
			groups = append(groups, g)
		}
		i = j
	}
	slices.SortFunc(groups, func(a, b group) int {
		return cmp.Or(cmp.Compare(b.Size, a.Size), strings.Compare(a.Paths[0], b.Paths[0]))
	})
	return groups
}

func sortProblems(ps []problem) {
	slices.SortFunc(ps, func(a, b problem) int {
		return strings.Compare(a.String(), b.String())
	})
}

// sameFindings reports whether two searches found the same things,
// comparing problems by their messages.
func sameFindings(a, b result) bool {
	msgs := func(r *result) []string {
		var s []string
		for _, p := range r.Problems {
			s = append(s, p.String())
		}
		r.Problems = nil
		return s
	}
	pa, pb := msgs(&a), msgs(&b)
	return slices.Equal(pa, pb) && reflect.DeepEqual(a, b)
}

// redundant returns the number of files that duplicate another and the
// bytes that deleting them would free.
func (r result) redundant() (files int, size int64) {
	for _, g := range r.Groups {
		files += len(g.Paths) - 1
		size += int64(len(g.Paths)-1) * g.Size
	}
	return files, size
}

// printSummary prints the counts of a search.
func printSummary(w io.Writer, r result) {
	fmt.Fprintf(w, "%s (%s) in %s; hashed %s (%s) that share their size with another\n",
		plural(r.Files, "file"), formatBytes(r.Bytes), plural(r.Dirs, "directory"),
		plural(r.Hashed, "file"), formatBytes(r.HashedBytes))
	if r.Symlinks > 0 || r.Special > 0 {
		fmt.Fprintf(w, "skipped %s (not followed) and %s (pipes, sockets, devices)\n",
			plural(r.Symlinks, "symlink"), plural(r.Special, "special file"))
	}
	if r.Unreadable > 0 {
		fmt.Fprintf(w, "%s could not be read (see the problems below)\n", plural(r.Unreadable, "file"))
	}
}

// printGroups prints the groups of duplicates, one path a line.
func printGroups(w io.Writer, r result) {
	n, size := r.redundant()
	if len(r.Groups) == 0 {
		fmt.Fprintln(w, "no duplicates")
		return
	}
	fmt.Fprintf(w, "%s of duplicates: %s could go, freeing %s\n",
		plural(len(r.Groups), "group"), plural(n, "file"), formatBytes(size))
	for _, g := range r.Groups {
		fmt.Fprintf(w, "\n%s each, sha256 %x...:\n", formatBytes(g.Size), g.Sum[:6])
		for _, p := range g.Paths {
			fmt.Fprintf(w, "  %s\n", p)
		}
	}
}

// printProblems prints one line per problem.
func printProblems(w io.Writer, r result) {
	for _, p := range r.Problems {
		fmt.Fprintf(w, "dupfind: %s\n", p)
	}
}

// formatBytes shows n exactly below 1 KiB, else in binary units.
func formatBytes(n int64) string {
	if n < 1024 {
		return plural(int(n), "byte")
	}
	v, unit := float64(n)/1024, "KiB"
	for _, u := range []string{"MiB", "GiB", "TiB"} {
		if v < 1024 {
			break
		}
		v, unit = v/1024, u
	}
	return fmt.Sprintf("%.1f %s", v, unit)
}

func plural(n int, noun string) string {
	switch {
	case n == 1:
		return "1 " + noun
	case strings.HasSuffix(noun, "y"):
		return fmt.Sprintf("%d %sies", n, strings.TrimSuffix(noun, "y"))
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
