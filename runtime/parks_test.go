package runtime

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// waitsOutsideWorkers lists the functions of this package that may block
// (a channel receive or select, time.Sleep, sync.Cond.Wait) without
// marking a worker parked, and why: none of them runs on a worker's
// goroutine while it waits, or the monitor watches it another way. Any
// other blocking operation must sit in a function passed to
// sleep.Sleep.ParkMarked, or be one of package sleep's own parks
// (NoWorkFound, ParkOnLatch): a worker that blocks unmarked looks blocked
// in a task, and the monitor starts a spare for it (monitor.go).
var waitsOutsideWorkers = map[string]string{
	"Registry.monitor":      "the monitor goroutine",
	"Registry.sleepFor":     "the monitor goroutine's timer",
	"Registry.Close":        "the closing goroutine waits for the pool to drain",
	"Registry.stopSpares":   "the closing goroutine waits for the monitor to end",
	"handoff.wait":          "a goroutine that is no worker waits for a worker",
	"Future.Await":          "a goroutine that is no worker waits (a worker calls waitFuture)",
	"Worker.waitActivation": "a dormant spare: the monitor watches active spares only",
	"findStatusOffset":      "the first registry's maker, once, before any worker starts",
}

// TestEveryParkIsMarked: every blocking operation in the engine either
// runs in a function listed in waitsOutsideWorkers or in a function
// literal passed to ParkMarked. A new park on a worker's path must go
// through ParkMarked (or be added above with its reason); this test
// fails until it does.
func TestEveryParkIsMarked(t *testing.T) {
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	fset := token.NewFileSet()
	var unmarked []string
	used := map[string]bool{}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		require.NoError(t, err)
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			where := funcName(fn)
			for _, pos := range blockingOps(fn.Body) {
				if _, ok := waitsOutsideWorkers[where]; ok {
					used[where] = true
					continue
				}
				unmarked = append(unmarked, fset.Position(pos).String()+" in "+where)
			}
		}
	}
	assert.Empty(t, unmarked, "blocking operations outside sleep.Sleep.ParkMarked: mark them, or list the function in waitsOutsideWorkers with its reason")
	var stale []string
	for name := range waitsOutsideWorkers {
		if !used[name] {
			stale = append(stale, name)
		}
	}
	sort.Strings(stale)
	assert.Empty(t, stale, "waitsOutsideWorkers lists functions that no longer block")
}

// funcName is "Recv.Name" for a method, "Name" for a function.
func funcName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return fn.Name.Name
	}
	t := fn.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	if ix, ok := t.(*ast.IndexExpr); ok {
		t = ix.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name + "." + fn.Name.Name
	}
	return fn.Name.Name
}

// blockingOps returns the positions of the operations in body that may
// block: channel receives, selects without a default, time.Sleep and
// Wait calls on a sync.Cond (any .Wait() whose receiver name ends in
// "cond" or is "drained"). It skips function literals passed to
// ParkMarked.
func blockingOps(body *ast.BlockStmt) []token.Pos {
	var ops []token.Pos
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			if sel, ok := n.Fun.(*ast.SelectorExpr); ok {
				if sel.Sel.Name == "ParkMarked" {
					return false // its function is the marked park
				}
				if id, ok := sel.X.(*ast.Ident); ok && id.Name == "time" && sel.Sel.Name == "Sleep" {
					ops = append(ops, n.Pos())
				}
				if sel.Sel.Name == "Wait" && len(n.Args) == 0 && isCond(sel.X) {
					ops = append(ops, n.Pos())
				}
			}
		case *ast.UnaryExpr:
			if n.Op == token.ARROW {
				ops = append(ops, n.Pos())
			}
		case *ast.SelectStmt:
			hasDefault := slices.ContainsFunc(n.Body.List, func(s ast.Stmt) bool {
				cc, ok := s.(*ast.CommClause)
				return ok && cc.Comm == nil
			})
			if hasDefault {
				return false // never blocks (its cases' receives included)
			}
			ops = append(ops, n.Pos())
			return false // the select is the one blocking operation
		}
		return true
	})
	return ops
}

// isCond reports whether x names a sync.Cond by this package's naming.
func isCond(x ast.Expr) bool {
	var name string
	switch x := x.(type) {
	case *ast.Ident:
		name = x.Name
	case *ast.SelectorExpr:
		name = x.Sel.Name
	default:
		return false
	}
	return strings.HasSuffix(strings.ToLower(name), "cond") || name == "drained"
}
