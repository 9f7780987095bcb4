package main

import (
	"bytes"
	"regexp"
	"runtime/pprof"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var consistencyLine = regexp.MustCompile(`(?m)^consistency (\w+): pushes (\d+) = pops (\d+) \+ steals (\d+) \+ remaining (\d+) \(drained (\d+)\): (\w+)$`)

// TestRunAllVariants runs the benchmark briefly on every deque, with small
// blocks so that BWoS crosses blocks and Bulk segments, and checks that it
// reports a consistent count for each.
func TestRunAllVariants(t *testing.T) {
	for _, args := range [][]string{
		{"-duration", "30ms", "-stealers", "2", "-capacity", "64", "-blocks", "4", "-blocksize", "16", "-payload", "100"},
		{"-duration", "30ms", "-stealers", "1", "-freq", "200000", "-variant", "bwos"},
		{"-duration", "10ms", "-stealers", "0", "-variant", "abp"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			var out, errs bytes.Buffer
			status := runWithWatchdog(t, func() int { return run(args, &out, &errs) })
			t.Log(out.String())
			require.Zero(t, status, "exit status; stderr: %s", errs.String())
			lines := consistencyLine.FindAllStringSubmatch(out.String(), -1)
			want := allVariants
			if i := indexOf(args, "-variant"); i >= 0 {
				want = []string{args[i+1]}
			}
			require.Len(t, lines, len(want), "one consistency line per deque")
			for i, m := range lines {
				assert.Equal(t, want[i], m[1])
				assert.Equal(t, "ok", m[7], "line %q", m[0])
				assert.NotEqual(t, "0", m[2], "%s: the owner pushed nothing", m[1])
			}
		})
	}
}

// runWithWatchdog runs body (a benchmark run, with goroutines of its own)
// and returns its result, or fails the test with every goroutine's stack
// if it has not returned within a minute: a hang, never a slow machine
// (the runs here last well under a second).
func runWithWatchdog(t *testing.T, body func() int) int {
	t.Helper()
	done := make(chan int, 1)
	go func() { done <- body() }()
	timer := time.NewTimer(time.Minute)
	defer timer.Stop()
	select {
	case status := <-done:
		return status
	case <-timer.C:
		var buf bytes.Buffer
		_ = pprof.Lookup("goroutine").WriteTo(&buf, 2)
		t.Fatalf("benchmark run still going after a minute; goroutines:\n%s", buf.String())
		return -1
	}
}

func indexOf(s []string, x string) int {
	for i, v := range s {
		if v == x {
			return i
		}
	}
	return -1
}

func TestRunBulkExperiments(t *testing.T) {
	var out, errs bytes.Buffer
	status := runWithWatchdog(t, func() int {
		return run([]string{"-exp", "bulk", "-duration", "20ms", "-capacity", "256"}, &out, &errs)
	})
	require.Zero(t, status, errs.String())
	s := out.String()
	t.Log(s)
	for _, want := range []string{"Bulk.PushBatch", "ChaseLev B×Push", "Bulk.StealFraction", "60%"} {
		assert.Contains(t, s, want)
	}
	for _, b := range bulkBatchSizes {
		assert.Regexp(t, regexp.MustCompile(`(?m)^\s+`+strconv.Itoa(b)+`\s+\d`), s, "a row for B=%d", b)
	}
}

func TestRunBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-variant", "nope"},
		{"-stealers", "-1"},
		{"-capacity", "0"},
		{"-blocks", "1"},
		{"-duration", "0s"},
		{"-exp", "other"},
		{"-freq", "-5"},
		{"extra"},
		{"-nosuchflag"},
	} {
		var out, errs bytes.Buffer
		assert.Equal(t, 2, run(args, &out, &errs), "%v", args)
		assert.NotEmpty(t, errs.String(), "%v: says why", args)
	}
}
