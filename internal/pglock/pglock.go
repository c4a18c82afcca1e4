// Package pglock makes every PostgreSQL advisory lock fieldbrief takes,
// from a closed list of purposes (docs/worker.md, "Locks").
package pglock

import (
	"context"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Querier is a connection, a pool or a transaction: what a lock is taken on.
type Querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// Every advisory lock fieldbrief takes is made here, from the
// closed list of purposes below (docs/worker.md, "Locks"). A key is
// the purpose in its top 16 bits and a database id (an org's, or 0 for a
// lock of the whole platform) in the low 48: no string a client chooses
// is ever hashed into a key, so no request can name a lock the tick, the
// migrations or another org's writes take. TestLockInventory fails on an
// advisory lock taken anywhere else.

// LockPurpose is what a lock serialises. Values are part of the key: never
// reuse or renumber one.
type LockPurpose int64

const (
	// LockMigrate: both migrators, one process at a time (session).
	LockMigrate LockPurpose = 1
	// LockTick: one worker replica scans for due briefings at a time (session).
	LockTick LockPurpose = 2
	// LockHistory: history partitions made or dropped by one process at a time.
	LockHistory LockPurpose = 3
	// LockLifeline: one worker at a time gives back the tasks of dead ones.
	LockLifeline LockPurpose = 4
	// LockFirings: per org; job writes hold it shared, the tick takes it
	// exclusively to record the org's scheduled firings.
	LockFirings LockPurpose = 5
	// LockUpdates: per org; recording job changes and folding them into
	// update emails never interleave.
	LockUpdates LockPurpose = 6
	// LockTechnicians: per org; additions of technicians count against
	// the org's limit one at a time.
	LockTechnicians LockPurpose = 7
	// LockImports: per org; CSV import saves take turns.
	LockImports LockPurpose = 8
)

// lockIDBits is the width of a key's id part; ids are identity columns,
// far below 2^48.
const lockIDBits = 48

// LockKey is the advisory lock key of purpose p for the database id id (0
// for a platform-wide lock). An id outside [0, 2^48) is refused rather
// than folded into another id's key.
func LockKey(p LockPurpose, id int64) (int64, error) {
	if id < 0 || id >= 1<<lockIDBits {
		return 0, fmt.Errorf("advisory lock %d: id %d out of range", p, id)
	}
	return int64(p)<<lockIDBits | id, nil
}

func mustKey(p LockPurpose) int64 {
	k, _ := LockKey(p, 0)
	return k
}

// keySQL is the SQL of purpose p's key for the id the SQL expression id
// gives, for locks taken in one statement over many ids (checked with
// LockKey first).
func keySQL(p LockPurpose, id string) string {
	return "(" + strconv.FormatInt(int64(p)<<lockIDBits, 10) + "::bigint | " + id + ")"
}

// XactLock takes purpose p's lock for id for the rest of q's transaction,
// waiting for it (bounded by the transaction's lock_timeout).
func XactLock(ctx context.Context, q Querier, p LockPurpose, id int64) error {
	k, err := LockKey(p, id)
	if err != nil {
		return err
	}
	if _, err := q.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, k); err != nil {
		return fmt.Errorf("advisory lock %d of %d: %w", p, id, err)
	}
	return nil
}

// XactLockShared is XactLock in shared mode: holders of the shared lock
// do not wait for each other, only for an exclusive holder.
func XactLockShared(ctx context.Context, q Querier, p LockPurpose, id int64) error {
	k, err := LockKey(p, id)
	if err != nil {
		return err
	}
	if _, err := q.Exec(ctx, `SELECT pg_advisory_xact_lock_shared($1)`, k); err != nil {
		return fmt.Errorf("shared advisory lock %d of %d: %w", p, id, err)
	}
	return nil
}

// TryXactLock takes purpose p's lock for id for the rest of q's
// transaction if nobody holds it, without waiting.
func TryXactLock(ctx context.Context, q Querier, p LockPurpose, id int64) (bool, error) {
	k, err := LockKey(p, id)
	if err != nil {
		return false, err
	}
	var ok bool
	if err := q.QueryRow(ctx, `SELECT pg_try_advisory_xact_lock($1)`, k).Scan(&ok); err != nil {
		return false, fmt.Errorf("advisory lock %d of %d: %w", p, id, err)
	}
	return ok, nil
}

// XactLockEach takes purpose p's lock exclusively for each of ids for the
// rest of tx, one after the other in the order given (callers sort them,
// so two transactions never wait for each other in a cycle), and returns
// the ids it holds: with wait every one (waiting for each, bounded by the
// transaction's lock_timeout), without wait those nobody held.
func XactLockEach(ctx context.Context, tx pgx.Tx, p LockPurpose, ids []int64, wait bool) ([]int64, error) {
	for _, id := range ids {
		if _, err := LockKey(p, id); err != nil {
			return nil, err
		}
	}
	take := "pg_try_advisory_xact_lock(" + keySQL(p, "o.id") + ")"
	if wait {
		take = "(SELECT true FROM pg_advisory_xact_lock(" + keySQL(p, "o.id") + "))"
	}
	rows, err := tx.Query(ctx, `
		SELECT o.id FROM unnest($1::bigint[]) WITH ORDINALITY AS o(id, n)
		 WHERE `+take+`
		 ORDER BY o.n`, ids)
	if err != nil {
		return nil, fmt.Errorf("advisory locks %d of %d ids: %w", p, len(ids), err)
	}
	held, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, fmt.Errorf("advisory locks %d of %d ids: %w", p, len(ids), err)
	}
	return held, nil
}

// SessionLock is a platform-wide lock held by one connection's session
// until Unlock (or until the connection closes). Session locks belong to a
// connection: lock and unlock on the same one.
type SessionLock struct{ key int64 }

// SessionLockOf is purpose p's platform-wide session lock.
func SessionLockOf(p LockPurpose) SessionLock { return SessionLock{key: mustKey(p)} }

// Lock waits for the lock on conn.
func (l SessionLock) Lock(ctx context.Context, conn Querier) error {
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1)`, l.key); err != nil {
		return fmt.Errorf("advisory lock %#x: %w", l.key, err)
	}
	return nil
}

// TryLock takes the lock on conn if nobody holds it.
func (l SessionLock) TryLock(ctx context.Context, conn Querier) (bool, error) {
	var ok bool
	if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1)`, l.key).Scan(&ok); err != nil {
		return false, fmt.Errorf("advisory lock %#x: %w", l.key, err)
	}
	return ok, nil
}

// Unlock gives the lock back on conn, the connection that took it.
func (l SessionLock) Unlock(ctx context.Context, conn Querier) error {
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_unlock($1)`, l.key); err != nil {
		return fmt.Errorf("advisory unlock %#x: %w", l.key, err)
	}
	return nil
}
