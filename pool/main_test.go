package pool_test

import (
	"testing"

	"github.com/spindle-go/spindle/internal/testutil"
	"github.com/spindle-go/spindle/pool"
)

func TestMain(m *testing.M) { testutil.MainWithoutLeaks(m, pool.CloseDefaults) }
