package pool_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/spindle-go/spindle/internal/experiment"
	"github.com/spindle-go/spindle/pool"
)

func TestWithDequeRejectsUnknownKind(t *testing.T) {
	_, err := pool.New(experiment.WithDeque(experiment.DequeKind(99)))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "experiment.WithDeque(99)")
	assert.Equal(t, "DequeKind(99)", experiment.DequeKind(99).String())
	assert.Equal(t, "bwos", experiment.DequeBWoS.String())
}
