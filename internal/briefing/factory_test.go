package briefing

import (
	"testing"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/testutil"
)

type fixture struct {
	*testutil.Fixture
	store *Store
}

func setup(t *testing.T) *fixture {
	f := testutil.Setup(t)
	store, err := NewStore(f.DB)
	require.NoError(t, err)
	return &fixture{Fixture: f, store: store}
}
