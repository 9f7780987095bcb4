package testutil

import (
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// repoRoot is the repository's root, two levels above this package.
const repoRoot = "../.."

// testFuncs returns the names of every test, benchmark, example and fuzz
// function in the repository's _test.go files (both modules).
func testFuncs(t *testing.T) map[string]bool {
	t.Helper()
	names := map[string]bool{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(repoRoot, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && path != repoRoot || d.Name() == "runs") {
			return filepath.SkipDir
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			if fn, ok := decl.(*ast.FuncDecl); ok && fn.Recv == nil {
				names[fn.Name.Name] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return names
}

// docFiles are the pages a reader sees: README.md, docs/ (not the raw
// logs in docs/runs, which record what was true when they ran) and the
// protocol notes beside their packages' code (NOTES.md).
func docFiles(t *testing.T) []string {
	t.Helper()
	notes, err := filepath.Glob(filepath.Join(repoRoot, "*", "NOTES.md"))
	if err != nil {
		t.Fatal(err)
	}
	files := append([]string{filepath.Join(repoRoot, "README.md")}, notes...)
	err = filepath.WalkDir(filepath.Join(repoRoot, "docs"), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "runs" {
			return filepath.SkipDir
		}
		if strings.HasSuffix(path, ".md") {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

var (
	// A test, benchmark, example or fuzz function's name, as docs write
	// it (sub-benchmarks after a slash are the benchmark's business).
	testName = regexp.MustCompile(`\b(Test|Benchmark|Example|Fuzz)[A-Z][A-Za-z0-9_]*\b`)
	// A relative link of Markdown: [text](target).
	link = regexp.MustCompile(`\]\(([^)#\s]+)(#[^)]*)?\)`)
	// A repository path in code quotes: a file with a known extension,
	// or a directory of the module's layout, written with a slash.
	quotedPath = regexp.MustCompile("`((?:runtime|deque|sleep|pool|forkjoin|examples|bench|internal|docs|\\.ci)/[A-Za-z0-9_./-]*)`")
	// A fenced code block, whose text is Go, not links.
	fenced = regexp.MustCompile("(?s)```.*?```")
)

// anyWithPrefix reports whether some name in names begins with prefix.
func anyWithPrefix(names map[string]bool, prefix string) bool {
	for n := range names {
		if strings.HasPrefix(n, prefix) {
			return true
		}
	}
	return false
}

// inGoRoot reports whether p names a package of Go's standard library
// (runtime/trace, runtime/pprof), which shares a first element with
// this repository's folders.
func inGoRoot(p string) bool {
	_, err := os.Stat(filepath.Join(build.Default.GOROOT, "src", p))
	return err == nil
}

// Every test, benchmark, example and fuzz function a page names exists,
// and so does every file or folder it links to or names in code quotes:
// the docs cite them as evidence, and a rename must not leave a page
// citing nothing.
func TestDocsNameWhatExists(t *testing.T) {
	funcs := testFuncs(t)
	for _, page := range docFiles(t) {
		data, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		text := string(data)
		rel, _ := filepath.Rel(repoRoot, page)
		for _, at := range testName.FindAllStringIndex(text, -1) {
			name := text[at[0]:at[1]]
			if at[1] < len(text) && text[at[1]] == '*' { // a family: TestStress*
				if !anyWithPrefix(funcs, name) {
					t.Errorf("%s names %s*, which no _test.go function begins with", rel, name)
				}
				continue
			}
			if !funcs[name] {
				t.Errorf("%s names %s, which no _test.go file declares", rel, name)
			}
		}
		prose := fenced.ReplaceAllString(text, "")
		for _, m := range link.FindAllStringSubmatch(prose, -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(page), target)); err != nil {
				t.Errorf("%s links to %s, which does not exist", rel, target)
			}
		}
		for _, m := range quotedPath.FindAllStringSubmatch(text, -1) {
			p := strings.TrimSuffix(m[1], "/...")
			if strings.ContainsAny(p, "*{}") {
				continue
			}
			if _, err := os.Stat(filepath.Join(repoRoot, p)); err != nil && !inGoRoot(p) {
				t.Errorf("%s names %s, which does not exist", rel, m[1])
			}
		}
	}
}
