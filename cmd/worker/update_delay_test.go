package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestBadUpdateDelay: a BRIEFING_UPDATE_DELAY the worker cannot use stops
// it at start, naming the variable, before it touches the database.
func TestBadUpdateDelay(t *testing.T) {
	t.Parallel()
	for _, v := range []string{"soon", "0s", "2h"} {
		env := map[string]string{"DATABASE_URL": "postgres://invalid", "BRIEFING_UPDATE_DELAY": v}
		var stdout, stderr strings.Builder
		err := run(t.Context(), []string{"-once"}, func(k string) string { return env[k] }, &stdout, &stderr)
		require.ErrorContains(t, err, "BRIEFING_UPDATE_DELAY", v)
		require.Empty(t, stdout.String(), v)
	}
}
