package pglock_test

import (
	"context"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/pglock"
	"fieldbrief/internal/testdb"
	"fieldbrief/internal/testutil"
)

// advisoryCall is any of PostgreSQL's advisory lock functions, named in Go
// or SQL.
var advisoryCall = regexp.MustCompile(`pg_(try_)?advisory_(xact_)?(un)?lock`)

// TestLockInventory reads every Go and SQL file of the project outside
// tests and fails on an advisory lock taken anywhere but in this package,
// where every lock is made from the closed list of purposes
// (docs/worker.md, "Locks").
func TestLockInventory(t *testing.T) {
	var seen []string
	for rel, b := range testutil.SourceFiles(t) {
		if advisoryCall.Match(b) {
			seen = append(seen, rel)
		}
	}
	require.Equal(t, []string{filepath.Join("internal", "pglock", "pglock.go")}, seen,
		"advisory locks are made in internal/pglock only")
}

// TestLockKeysAreIDsUnderAPurpose: a key is its purpose and an id, so two
// purposes or two ids never share one, and an id that would spill into
// the purpose bits is refused.
func TestLockKeysAreIDsUnderAPurpose(t *testing.T) {
	purposes := []pglock.LockPurpose{pglock.LockMigrate, pglock.LockTick, pglock.LockHistory, pglock.LockLifeline,
		pglock.LockFirings, pglock.LockUpdates, pglock.LockTechnicians, pglock.LockImports}
	keys := map[int64]string{}
	for _, p := range purposes {
		for _, id := range []int64{0, 1, 2, 1<<48 - 1} {
			k, err := pglock.LockKey(p, id)
			require.NoError(t, err)
			require.Equal(t, int64(p), k>>48, "the purpose is the key's top bits")
			require.Equal(t, id, k&(1<<48-1), "the id is the key's low bits")
			_, dup := keys[k]
			require.False(t, dup, "purpose %d id %d shares a key", p, id)
			keys[k] = ""
		}
	}
	for _, id := range []int64{-1, 1 << 48, 1 << 62} {
		_, err := pglock.LockKey(pglock.LockFirings, id)
		require.Error(t, err, "id %d", id)
	}
}

// TestLocksTakeTheirKeys: each way of taking a lock takes the key LockKey
// names, in the one-bigint key space (pg_locks' objsubid 1), and the
// exclusive and shared modes exclude each other across connections.
func TestLocksTakeTheirKeys(t *testing.T) {
	ctx := context.Background()
	db := testdb.New(t)
	key := func(p pglock.LockPurpose, id int64) int64 {
		k, err := pglock.LockKey(p, id)
		require.NoError(t, err)
		return k
	}
	locked := func(k int64, mode string) int {
		var n int
		require.NoError(t, db.QueryRow(ctx, `
			SELECT count(*) FROM pg_locks
			 WHERE locktype = 'advisory' AND objsubid = 1 AND granted AND mode = $2
			   AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
			   AND ((classid::bigint << 32) | objid::bigint) = $1`, k, mode).Scan(&n))
		return n
	}

	tx, err := db.Begin(ctx)
	require.NoError(t, err)
	defer tx.Rollback(ctx) //nolint:errcheck
	require.NoError(t, pglock.XactLock(ctx, tx, pglock.LockUpdates, 42))
	require.Equal(t, 1, locked(key(pglock.LockUpdates, 42), "ExclusiveLock"))
	require.NoError(t, pglock.XactLockShared(ctx, tx, pglock.LockFirings, 42))
	require.Equal(t, 1, locked(key(pglock.LockFirings, 42), "ShareLock"))
	held2, err := pglock.XactLockEach(ctx, tx, pglock.LockFirings, []int64{7, 8}, false)
	require.NoError(t, err)
	require.Equal(t, []int64{7, 8}, held2)
	require.Equal(t, 1, locked(key(pglock.LockFirings, 7), "ExclusiveLock"))

	// Another transaction: the exclusive firing lock of org 7 is taken, org
	// 42's is shared (so an exclusive try fails), org 9's is free.
	other, err := db.Begin(ctx)
	require.NoError(t, err)
	defer other.Rollback(ctx) //nolint:errcheck
	got, err := pglock.XactLockEach(ctx, other, pglock.LockFirings, []int64{7, 42, 9}, false)
	require.NoError(t, err)
	require.Equal(t, []int64{9}, got)
	ok, err := pglock.TryXactLock(ctx, other, pglock.LockUpdates, 42)
	require.NoError(t, err)
	require.False(t, ok, "org 42's update lock is held by the first transaction")
	ok, err = pglock.TryXactLock(ctx, other, pglock.LockUpdates, 43)
	require.NoError(t, err)
	require.True(t, ok)
	_, err = pglock.XactLockEach(ctx, other, pglock.LockFirings, []int64{-1}, false)
	require.Error(t, err, "an id out of range is refused before any lock is taken")

	// Session locks belong to a connection.
	conn, err := db.Acquire(ctx)
	require.NoError(t, err)
	defer conn.Release()
	tick := pglock.SessionLockOf(pglock.LockTick)
	ok, err = tick.TryLock(ctx, conn)
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, 1, locked(key(pglock.LockTick, 0), "ExclusiveLock"))
	conn2, err := db.Acquire(ctx)
	require.NoError(t, err)
	defer conn2.Release()
	ok, err = tick.TryLock(ctx, conn2)
	require.NoError(t, err)
	require.False(t, ok, "another connection holds the tick lock")
	require.NoError(t, tick.Unlock(ctx, conn))
	ok, err = tick.TryLock(ctx, conn2)
	require.NoError(t, err)
	require.True(t, ok)
	require.NoError(t, tick.Unlock(ctx, conn2))
}
