package testutil

import (
	"fmt"
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// CheckDocs fails t with every line UnexportedInDocs reports for the
// package in dir.
func CheckDocs(t testing.TB, dir string) {
	t.Helper()
	found, err := UnexportedInDocs(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range found {
		t.Error(line)
	}
}

// UnexportedInDocs reads the package in dir (its non-test files) and
// returns one line for each doc comment that users see (the package's,
// and those of its exported constants, variables, functions, types and
// their exported methods) that names an unexported top-level identifier
// of the package: a reader of go doc cannot look such a name up.
func UnexportedInDocs(dir string) ([]string, error) {
	fset := token.NewFileSet()
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var files []*ast.File
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	hidden := map[string]bool{}
	for _, f := range files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil && !d.Name.IsExported() {
					hidden[d.Name.Name] = true
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						if !s.Name.IsExported() {
							hidden[s.Name.Name] = true
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if !n.IsExported() && n.Name != "_" {
								hidden[n.Name] = true
							}
						}
					}
				}
			}
		}
	}
	pkg, err := doc.NewFromFiles(fset, files, "x")
	if err != nil {
		return nil, err
	}
	var found []string
	check := func(what, text string) {
		for _, m := range identifier.FindAllStringIndex(text, -1) {
			word := text[m[0]:m[1]]
			if hidden[word] && namesCode(text, word, m[0], m[1]) {
				found = append(found, fmt.Sprintf("%s: the doc names the unexported %s", what, word))
			}
		}
		if strings.Contains(text, "package runtime") || strings.Contains(text, "spindle/runtime") {
			found = append(found, what+": the doc sends the reader to the engine, package runtime")
		}
	}
	check("package "+pkg.Name, pkg.Doc)
	values := func(vs []*doc.Value) {
		for _, v := range vs {
			check(strings.Join(v.Names, ", "), v.Doc)
		}
	}
	funcs := func(fs []*doc.Func) {
		for _, f := range fs {
			name := f.Name
			if f.Recv != "" {
				name = f.Recv + "." + name
			}
			check(name, f.Doc)
		}
	}
	values(pkg.Consts)
	values(pkg.Vars)
	funcs(pkg.Funcs)
	for _, t := range pkg.Types {
		check(t.Name, t.Doc)
		values(t.Consts)
		values(t.Vars)
		funcs(t.Funcs)
		funcs(t.Methods)
	}
	sort.Strings(found)
	return found, nil
}

var identifier = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)

// namesCode tells an identifier in prose from a word that happens to be
// spelled like one ("finished", "fork"): it is one if it could not be an
// English word (an inner capital, a digit, an underscore), is called
// ("restore(") or is pointed to ("see restore").
func namesCode(text, word string, start, end int) bool {
	if strings.ContainsAny(word[1:], "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") {
		return true
	}
	if end < len(text) && text[end] == '(' {
		return true
	}
	return strings.HasSuffix(text[:start], "see ")
}
