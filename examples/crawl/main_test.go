package main

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/spindle-go/spindle/examples/internal/cmdtest"
)

// probe wraps a web's fetch, counting the fetches of each page and those
// called with their context already done.
type probe struct {
	w      *web
	counts []atomic.Int32
	late   atomic.Int32
}

func newProbe(w *web) *probe { return &probe{w: w, counts: make([]atomic.Int32, len(w.links))} }

func (p *probe) fetch(ctx context.Context, page int) ([]int, error) {
	if ctx.Err() != nil {
		p.late.Add(1)
	}
	p.counts[page].Add(1)
	return p.w.fetch(ctx, page)
}

// walker is crawl or crawlGoroutines.
type walker func(ctx context.Context, root, limit int, fetch func(context.Context, int) ([]int, error)) (int, error)

// walkers are the walks with a limit, which the tests run alike.
var walkers = map[string]walker{"pool.Group": crawl, "pool.Group+Block": crawlBlock, "goroutines": crawlGoroutines}

// crawlWithin runs a walk and fails the test if it does not return within
// a minute, rather than let a bug hang the test binary.
func crawlWithin(t *testing.T, ctx context.Context, crawl walker, limit int, fetch func(context.Context, int) ([]int, error)) (int, error) {
	t.Helper()
	type result struct {
		n   int
		err error
	}
	done := make(chan result, 1)
	go func() {
		n, err := crawl(ctx, 0, limit, fetch)
		done <- result{n, err}
	}()
	select {
	case r := <-done:
		return r.n, r.err
	case <-time.After(time.Minute):
		t.Fatal("crawl did not return within a minute")
		return 0, nil
	}
}

// subtree returns the number of pages at or under page in a web of n
// pages: the pages that a failure at page keeps from being visited, page
// aside.
func subtree(page, n int) int {
	count := 0
	for lo, hi := page, page; lo < n; lo, hi = fanout*lo+1, fanout*hi+fanout {
		count += min(hi, n-1) - lo + 1
	}
	return count
}

func TestCrawlWebSubtree(t *testing.T) {
	// subtree agrees with a walk of the generated web's child links.
	for _, n := range []int{1, 21, 23, 100, 777} {
		w := newWeb(n, -1)
		for page := range n {
			count, stack := 0, []int{page}
			for len(stack) > 0 {
				p := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				count++
				for _, c := range w.links[p] {
					if c > 0 && (c-1)/fanout == p {
						stack = append(stack, c)
					}
				}
			}
			require.Equal(t, count, subtree(page, n), "page %d of %d", page, n)
		}
	}
	assert.Equal(t, 1+4+16+64+256+1024, subtree(1, 4000)) // six full levels, down to pages 1365-2388
}

func TestCrawlVisitsEveryPageOnce(t *testing.T) {
	for name, crawl := range walkers {
		for _, limit := range []int{1, 3, 16} {
			const pages = 1000
			p := newProbe(newWeb(pages, -1))
			n, err := crawlWithin(t, t.Context(), crawl, limit, p.fetch)
			require.NoError(t, err, "%s, limit %d", name, limit)
			assert.Equal(t, pages, n, "%s, limit %d", name, limit)
			for page := range p.counts {
				if c := p.counts[page].Load(); c != 1 {
					t.Errorf("%s, limit %d: page %d fetched %d times, want once", name, limit, page, c)
				}
			}
		}
	}
}

func TestCrawlStopsAtFirstFetchError(t *testing.T) {
	for name, crawl := range walkers {
		for _, limit := range []int{1, 4, 16} {
			const pages, fail = 4000, 1 // the root's first child, with a third of the web under it
			p := newProbe(newWeb(pages, fail))
			n, err := crawlWithin(t, t.Context(), crawl, limit, p.fetch)
			var fe *FetchError
			require.ErrorAs(t, err, &fe, "%s, limit %d", name, limit)
			assert.Equal(t, fail, fe.Page, "%s, limit %d", name, limit)
			assert.EqualValues(t, 1, p.counts[fail].Load(), "%s, limit %d", name, limit)
			// Nothing under the failed page can have been visited.
			assert.LessOrEqual(t, n, pages-subtree(fail, pages)+1, "%s, limit %d", name, limit)
			visited := 0
			for page := range p.counts {
				c := p.counts[page].Load()
				assert.LessOrEqual(t, c, int32(1), "%s, limit %d: page %d", name, limit, page)
				visited += int(c)
			}
			assert.Equal(t, n, visited, "%s, limit %d", name, limit)
			// Once the walk is cancelled, only a task that had already checked
			// the context may still start a fetch, one at most, and the failed
			// task is not one of them.
			assert.LessOrEqual(t, int(p.late.Load()), limit-1, "%s, limit %d", name, limit)
		}
	}
}

func TestCrawlDeadline(t *testing.T) {
	// With at most 2 fetches of fetchTime (1ms) in flight, 20,000 pages
	// take at least 10 seconds: the 5ms deadline always comes first.
	const pages, limit = 20_000, 2
	for name, crawl := range walkers {
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Millisecond)
		p := newProbe(newWeb(pages, -1))
		n, err := crawlWithin(t, ctx, crawl, limit, p.fetch)
		cancel()
		require.ErrorIs(t, err, context.DeadlineExceeded, name)
		assert.Less(t, n, pages, name)
		for page := range p.counts {
			assert.LessOrEqual(t, p.counts[page].Load(), int32(1), "%s: page %d", name, page)
		}
		assert.LessOrEqual(t, int(p.late.Load()), limit, name)
	}
}

func TestCrawlSerial(t *testing.T) {
	const pages = 300
	p := newProbe(newWeb(pages, -1))
	n, err := crawlSerial(t.Context(), 0, p.fetch)
	require.NoError(t, err)
	assert.Equal(t, pages, n)
	for page := range p.counts {
		assert.EqualValues(t, 1, p.counts[page].Load(), "page %d", page)
	}

	const fail = 2
	p = newProbe(newWeb(pages, fail))
	n, err = crawlSerial(t.Context(), 0, p.fetch)
	var fe *FetchError
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, fail, fe.Page)
	assert.LessOrEqual(t, n, pages-subtree(fail, pages)+1)

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	n, err = crawlSerial(ctx, 0, p.fetch)
	assert.ErrorIs(t, err, context.Canceled)
	assert.Zero(t, n)
}

func TestCrawlCommand(t *testing.T) {
	const (
		header  = `a fake web of %d pages, 1ms a fetch, workers \d+ \(pool.Default\(\)\), GOMAXPROCS \d+:`
		serial  = `  serial, one fetch at a time +visited +%d in +\d+\.\d ms`
		spindle = `  pool\.Group, up to %d at a time +visited +%s in +\d+\.\d ms`
		gorouts = `  goroutines, up to %d at a time +visited +%s in +\d+\.\d ms`
		block   = `  pool\.Group \+ Block, up to %d +visited +%s in +\d+\.\d ms`
		ratio   = `  \d+\.\d\dx serial`
	)
	cmdtest.Run(t, run, []cmdtest.Case{
		{Args: []string{"-pages", "100"}, Lines: []string{
			fmt.Sprintf(header, 100),
			fmt.Sprintf(serial, 100),
			fmt.Sprintf(gorouts, 8, "100") + ratio,
			fmt.Sprintf(block, 8, "100") + ratio,
			fmt.Sprintf(spindle, 8, "100") + ratio,
		}},
		{Args: []string{"-pages", "100", "-limit", "3", "-compare=false"}, Lines: []string{
			fmt.Sprintf(header, 100),
			fmt.Sprintf(spindle, 3, "100"),
		}},
		{Args: []string{"-pages", "300", "-fail", "2", "-limit", "2", "-compare=false"}, Status: 1, Lines: []string{
			fmt.Sprintf(header, 300),
			fmt.Sprintf(spindle, 2, `\d+`),
			"error: fetch page 2: service unavailable",
		}},
		{Args: []string{"-pages", "100000", "-limit", "1", "-timeout", "2ms"}, Status: 1, Lines: []string{
			fmt.Sprintf(header, 100000),
			`  serial, one fetch at a time +visited +\d+ in +\d+\.\d ms`,
			fmt.Sprintf(gorouts, 1, `\d+`) + ratio,
			fmt.Sprintf(block, 1, `\d+`) + ratio,
			fmt.Sprintf(spindle, 1, `\d+`) + ratio,
			"error: context deadline exceeded",
		}},
		{Args: []string{"-limit", "0"}, Status: 2, Error: "-pages 1000, -limit 0: want at least 1 of each"},
		{Args: []string{"-pages", "10", "-fail", "10"}, Status: 2, Error: "-fail 10: want -1 or a page from 0 to 9"},
		{Args: []string{"extra"}, Status: 2, Error: `unexpected argument "extra"`},
		{Args: []string{"-nosuchflag"}, Status: 2, Error: "flag provided but not defined"},
	})
}

// BenchmarkCrawl walks a web of 1000 pages with each limited walk, limit
// 8, and reports the fetches in flight on average: the time spent in
// fetches over the walk's time.
func BenchmarkCrawl(b *testing.B) {
	w := newWeb(1000, -1)
	for _, name := range []string{"goroutines", "pool.Group", "pool.Group+Block"} {
		b.Run(name, func(b *testing.B) {
			var fetching atomic.Int64 // ns
			fetch := func(ctx context.Context, page int) ([]int, error) {
				start := time.Now()
				defer func() { fetching.Add(int64(time.Since(start))) }()
				return w.fetch(ctx, page)
			}
			start := time.Now()
			for b.Loop() {
				_, err := walkers[name](b.Context(), 0, 8, fetch)
				require.NoError(b, err)
			}
			b.ReportMetric(float64(fetching.Load())/float64(time.Since(start)), "fetches-in-flight")
		})
	}
}
