package main

import (
	"testing"

	"github.com/spindle-go/spindle/internal/testutil"
	"github.com/spindle-go/spindle/runtime"
)

func TestMain(m *testing.M) { testutil.MainWithoutLeaks(m, runtime.CloseKept) }
