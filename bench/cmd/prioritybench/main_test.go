package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestRunSmall runs both tables on tiny inputs and checks their shape.
func TestRunSmall(t *testing.T) {
	var out, errs bytes.Buffer
	args := []string{"-reps", "1", "-warmup", "0", "-tasks", "40", "-micros", "1", "-nodes", "3000"}
	if status := run(args, "", &out, &errs); status != 0 {
		t.Fatalf("status %d, stderr: %s", status, errs.String())
	}
	s := out.String()
	t.Log(s)
	for _, want := range []string{
		"command: prioritybench -reps 1",
		"machine: nproc=",
		"## Priority scenarios",
		"| bulk | strict | 2 |",
		"## Graph exploration",
		"| serial | 1 |",
		"| goroutines + channel | 2 |",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	// 5 scenarios x 4 policies x 2 worker counts, 9 graph rows, 2 headers
	// and 2 separators.
	if rows := strings.Count(s, "\n|"); rows != 40+9+4 {
		t.Errorf("%d table lines, want %d", rows, 40+9+4)
	}
}

func TestRunBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-reps", "0"},
		{"-workers", "1,x"},
		{"-workers", "0"},
		{"-only", "fib"},
		{"-nodes", "0"},
		{"extra"},
	} {
		var out, errs bytes.Buffer
		if status := run(args, "", &out, &errs); status != 2 {
			t.Errorf("%q: status %d, want 2", args, status)
		}
	}
}
