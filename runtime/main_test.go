package runtime

import (
	"testing"

	"github.com/spindle-go/spindle/internal/testutil"
)

func TestMain(m *testing.M) { testutil.MainWithoutLeaks(m, CloseKept) }
