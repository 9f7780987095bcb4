package pool_test

import (
	"testing"

	"github.com/spindle-go/spindle/internal/testutil"
)

// What go doc shows of pool names only what a user can look up: no
// unexported identifier, no pointer to the engine's package.
func TestDocsNameOnlyTheUserAPI(t *testing.T) { testutil.CheckDocs(t, ".") }
