package database

import (
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/require"
)

// TestShardMoved: Citus's error for a shard a move or split dropped under
// a statement is retried; its other internal errors are not.
func TestShardMoved(t *testing.T) {
	moved := &pgconn.PgError{Code: "XX000", Message: "could not find valid entry for shard 102038"}
	require.True(t, ShardMoved(fmt.Errorf("load session: %w", moved)))
	require.True(t, Transient(moved))
	require.False(t, ShardMoved(&pgconn.PgError{Code: "XX000", Message: "could not create distributed plan"}))
	require.False(t, ShardMoved(&pgconn.PgError{Code: "23505", Message: "could not find valid entry for shard 1"}))
	require.False(t, ShardMoved(nil))
}
