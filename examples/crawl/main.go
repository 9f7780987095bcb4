// Command crawl walks a fake web in parallel with a pool.Group: each page
// fetched is a task, which queues a task for each page it links to that
// no task has claimed yet (in a sync.Map, so that no page is fetched twice).
// It times the walk against two baselines: the same walk on the calling
// goroutine, one fetch at a time, and the walk as plain Go would write it,
// a goroutine per task under the same limit.
//
//	go run ./examples/crawl [-pages 1000] [-limit 8] [-fail -1] [-timeout 10s] [-compare=false]
//
// It prints one line per walk, the baselines and the walk with
// pool.Block first (unless -compare=false), each with the pages it
// visited and its time, the others' times also as multiples of the serial
// time (below 1 is faster); then the spindle walk's error, if any. A fetch only waits, so a walk
// gains from the fetches it keeps in flight (up to -limit), however few
// the workers.
//
// The tasks block in their fetches as plain Go code would: the pool
// notices a worker whose task blocks and starts a spare worker in its
// place (pool.WithSpares), so the walk keeps about as many fetches in
// flight as the goroutines do. With -compare it also walks with each
// fetch inside pool.Block, the explicit form, which lends the worker to
// other tasks at once; BenchmarkCrawl reports the fetches each walk keeps
// in flight on average.
//
// SetLimit(-limit) bounds the tasks queued or running, and so the fetches
// in flight. Under a limit a task never calls the blocking Go, as every
// slot could be held by a task waiting in Go for one: it calls TryGo and,
// when the group is full, fetches the page itself.
//
// The first failed fetch or the -timeout deadline ends the walk: queued
// tasks are skipped, running ones stop before their next fetch, and Wait
// returns the error. The group cancels its context only when a task
// returns an error, and a task that fetched inside pool.Block resumes only
// once the tasks its worker ran meanwhile have returned; so the walk
// cancels a context of its own as soon as a fetch fails.
//
// The web is generated: page i links to its children 4i+1 to 4i+4, to its
// parent, to page 0 and to its next sibling. Every page is reachable from
// page 0, and only through its parent: a failure at page f keeps all the
// pages under f from being visited. A fetch sleeps for a millisecond, a
// fast network round trip. (Go rounds shorter sleeps up to about that on
// Linux.)
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spindle-go/spindle/pool"
)

const fanout = 4 // children per page

// fetchTime is how long a fetch waits.
const fetchTime = time.Millisecond

// FetchError is the error of a page that fails to load.
type FetchError struct{ Page int }

func (e *FetchError) Error() string { return fmt.Sprintf("fetch page %d: service unavailable", e.Page) }

// web is a fake web of pages 0 to len(links)-1.
type web struct {
	links [][]int // the links of each page
	fail  int     // the page whose fetch fails, or -1
}

func newWeb(pages, fail int) *web {
	w := &web{links: make([][]int, pages), fail: fail}
	for i := range pages {
		var links []int
		for c := fanout*i + 1; c <= fanout*i+fanout && c < pages; c++ {
			links = append(links, c)
		}
		if i > 0 {
			parent := (i - 1) / fanout
			links = append(links, parent, 0)
			if next := fanout*parent + 1 + i%fanout; next < pages && next != i {
				links = append(links, next)
			}
		}
		w.links[i] = links
	}
	return w
}

// fetch loads a page and returns its links, blocking meanwhile. A real
// fetch would pass ctx on to its request.
func (w *web) fetch(_ context.Context, page int) ([]int, error) {
	time.Sleep(fetchTime)
	if page == w.fail {
		return nil, &FetchError{Page: page}
	}
	return w.links[page], nil
}

// crawl fetches every page reachable from root, at most limit (>= 1) at
// a time, and returns how many fetches it started and the first error: a
// fetch's, or ctx's if ctx ended first. A task blocks in its fetch as
// plain Go code would: the pool starts a spare worker in place of a
// worker whose task blocks.
func crawl(ctx context.Context, root, limit int, fetch func(ctx context.Context, page int) ([]int, error)) (int, error) {
	return crawlWaiting(ctx, root, limit, fetch, func(f func()) { f() })
}

// crawlBlock is crawl with each fetch inside pool.Block, which lends the
// worker to other tasks at once, with no spare, while the fetch waits.
func crawlBlock(ctx context.Context, root, limit int, fetch func(ctx context.Context, page int) ([]int, error)) (int, error) {
	return crawlWaiting(ctx, root, limit, fetch, pool.Block)
}

// crawlWaiting is crawl with each fetch called through wait.
func crawlWaiting(ctx context.Context, root, limit int, fetch func(ctx context.Context, page int) ([]int, error), wait func(func())) (int, error) {
	g, gctx := pool.NewGroup(ctx)
	g.SetLimit(limit)
	// ctx also ends as soon as a fetch fails (see the package comment).
	ctx, stop := context.WithCancelCause(gctx)
	defer stop(nil)
	var claimed sync.Map // page -> struct{}{}, stored by the one task that fetches it
	var fetched atomic.Int64
	var visit func(page int) error
	visit = func(page int) error {
		if ctx.Err() != nil {
			return context.Cause(ctx) // a fetch failed, or the deadline passed
		}
		fetched.Add(1)
		var links []int
		var err error
		wait(func() {
			if links, err = fetch(ctx, page); err != nil {
				stop(err)
			}
		})
		if err != nil {
			return err
		}
		for _, next := range links {
			if _, dup := claimed.LoadOrStore(next, struct{}{}); dup {
				continue
			}
			task := func() error { return visit(next) }
			if !g.TryGo(task) {
				if err := task(); err != nil {
					return err
				}
			}
		}
		return nil
	}
	claimed.Store(root, struct{}{})
	g.Go(func() error { return visit(root) })
	err := g.Wait()
	return int(fetched.Load()), err
}

// crawlGoroutines is crawl as plain Go would write it: a goroutine per
// task, with a buffered channel of limit slots in place of SetLimit (a
// task holds a slot until it returns) and a send that does not wait in
// place of TryGo.
func crawlGoroutines(ctx context.Context, root, limit int, fetch func(ctx context.Context, page int) ([]int, error)) (int, error) {
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	slots := make(chan struct{}, limit)
	var (
		wg       sync.WaitGroup
		claimed  sync.Map
		fetched  atomic.Int64
		errOnce  sync.Once
		firstErr error
	)
	var visit func(page int) error
	tryGo := func(page int) bool {
		select {
		case slots <- struct{}{}:
		default:
			return false
		}
		wg.Go(func() {
			defer func() { <-slots }()
			if err := visit(page); err != nil {
				errOnce.Do(func() { firstErr = err })
				stop(err)
			}
		})
		return true
	}
	visit = func(page int) error {
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		fetched.Add(1)
		links, err := fetch(ctx, page)
		if err != nil {
			stop(err)
			return err
		}
		for _, next := range links {
			if _, dup := claimed.LoadOrStore(next, struct{}{}); !dup && !tryGo(next) {
				if err := visit(next); err != nil {
					return err
				}
			}
		}
		return nil
	}
	claimed.Store(root, struct{}{})
	tryGo(root)
	wg.Wait()
	return int(fetched.Load()), firstErr
}

// crawlSerial is crawl on the calling goroutine, one fetch at a time,
// depth first: the baseline.
func crawlSerial(ctx context.Context, root int, fetch func(ctx context.Context, page int) ([]int, error)) (int, error) {
	claimed := map[int]bool{root: true}
	fetched := 0
	var visit func(page int) error
	visit = func(page int) error {
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		fetched++
		links, err := fetch(ctx, page)
		if err != nil {
			return err
		}
		for _, next := range links {
			if !claimed[next] {
				claimed[next] = true
				if err := visit(next); err != nil {
					return err
				}
			}
		}
		return nil
	}
	err := visit(root)
	return fetched, err
}

func main() {
	// No GOMAXPROCS sizing here: Go sizes it from the container's CPU
	// limit and keeps it current, and the pools follow it; setting it
	// (automaxprocs does) would switch those updates off.
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is the command; it returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("crawl", flag.ContinueOnError)
	fs.SetOutput(stderr)
	pages := fs.Int("pages", 1000, "pages in the fake web")
	limit := fs.Int("limit", 8, "most fetches in flight at once")
	fail := fs.Int("fail", -1, "the page whose fetch fails; -1 for none")
	timeout := fs.Duration("timeout", 10*time.Second, "give up after this long (the deadline of each walk)")
	compare := fs.Bool("compare", true, "also walk serially, one fetch at a time, and print the ratio of the times")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	switch {
	case fs.NArg() > 0:
		return usage(stderr, "unexpected argument %q", fs.Arg(0))
	case *pages < 1 || *limit < 1:
		return usage(stderr, "-pages %d, -limit %d: want at least 1 of each", *pages, *limit)
	case *fail < -1 || *fail >= *pages:
		return usage(stderr, "-fail %d: want -1 or a page from 0 to %d", *fail, *pages-1)
	}

	w := newWeb(*pages, *fail)
	// walk runs one walk under its own deadline and prints its line.
	walk := func(name string, crawl func(ctx context.Context) (int, error), serial time.Duration) (time.Duration, error) {
		ctx, cancel := context.WithTimeout(context.Background(), *timeout)
		defer cancel()
		start := time.Now()
		n, err := crawl(ctx)
		d := time.Since(start)
		fmt.Fprintf(stdout, "  %-34s visited %5d in %8.1f ms", name, n, float64(d.Microseconds())/1000)
		if serial > 0 {
			fmt.Fprintf(stdout, "  %.2fx serial", float64(d)/float64(serial))
		}
		fmt.Fprintln(stdout)
		return d, err
	}
	fmt.Fprintf(stdout, "a fake web of %d pages, %v a fetch, workers %d (pool.Default()), GOMAXPROCS %d:\n",
		*pages, fetchTime, pool.Default().Workers(), runtime.GOMAXPROCS(0))
	var serial time.Duration
	if *compare {
		serial, _ = walk("serial, one fetch at a time", func(ctx context.Context) (int, error) {
			return crawlSerial(ctx, 0, w.fetch)
		}, 0)
		walk(fmt.Sprintf("goroutines, up to %d at a time", *limit), func(ctx context.Context) (int, error) {
			return crawlGoroutines(ctx, 0, *limit, w.fetch)
		}, serial)
	}
	if *compare {
		walk(fmt.Sprintf("pool.Group + Block, up to %d", *limit), func(ctx context.Context) (int, error) {
			return crawlBlock(ctx, 0, *limit, w.fetch)
		}, serial)
	}
	_, err := walk(fmt.Sprintf("pool.Group, up to %d at a time", *limit), func(ctx context.Context) (int, error) {
		return crawl(ctx, 0, *limit, w.fetch)
	}, serial)
	if err != nil {
		fmt.Fprintln(stdout, "error:", err)
		return 1
	}
	return 0
}

func usage(stderr io.Writer, format string, args ...any) int {
	fmt.Fprintf(stderr, "crawl: "+format+"\n", args...)
	return 2
}
