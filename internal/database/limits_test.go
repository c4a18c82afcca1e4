package database_test

import (
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"fieldbrief/internal/database"
	"fieldbrief/internal/testdb"
	"fieldbrief/internal/testutil"
)

// beginCall is a transaction begun some other way than through this
// package: pgx's BeginFunc/BeginTxFunc, or a pool's or connection's Begin.
var beginCall = regexp.MustCompile(`pgx\.Begin(Tx)?Func\(|(\w+)\.Begin\(ctx`)

// TestTransactionsBeginHere: every transaction of the code outside tests
// begins through database.BeginFunc, BeginTxFunc, Begin or the read
// transaction, so a request's limits hold for each one (docs/worker.md,
// "No wait without bound"). internal/history is the one exception: the
// database package imports it, its transactions run in the worker and
// operator commands, and they set their own lock_timeout.
func TestTransactionsBeginHere(t *testing.T) {
	var outside []string
	for rel, b := range testutil.SourceFiles(t, filepath.Join("internal", "database"), filepath.Join("internal", "history")) {
		if !strings.HasSuffix(rel, ".go") {
			continue
		}
		for _, m := range beginCall.FindAllSubmatch(b, -1) {
			if string(m[2]) != "database" {
				outside = append(outside, rel)
				break
			}
		}
	}
	require.Empty(t, outside, "these files begin transactions without database.BeginFunc/BeginTxFunc/Begin")
}

// TestLimitsAreSetAtBegin: a transaction begun under a context's limits
// has them as its lock_timeout and statement_timeout, with the options it
// asked for; without limits it has the server's.
func TestLimitsAreSetAtBegin(t *testing.T) {
	db := testdb.New(t)
	ctx := database.WithLimits(context.Background(), database.Limits{Lock: 1500 * time.Millisecond, Statement: 7 * time.Second})
	err := database.BeginTxFunc(ctx, db, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		var lock, stmt, iso, ro string
		require.NoError(t, tx.QueryRow(ctx, `SELECT current_setting('lock_timeout'), current_setting('statement_timeout'),
			current_setting('transaction_isolation'), current_setting('transaction_read_only')`).Scan(&lock, &stmt, &iso, &ro))
		require.Equal(t, []string{"1500ms", "7s", "repeatable read", "on"}, []string{lock, stmt, iso, ro})
		return nil
	})
	require.NoError(t, err)
	var lock string
	require.NoError(t, db.QueryRow(context.Background(), `SELECT current_setting('lock_timeout')`).Scan(&lock))
	require.Equal(t, "0", lock, "SET LOCAL ended with its transaction")
	err = database.BeginFunc(context.Background(), db, func(tx pgx.Tx) error {
		return tx.QueryRow(context.Background(), `SELECT current_setting('lock_timeout')`).Scan(&lock)
	})
	require.NoError(t, err)
	require.Equal(t, "0", lock, "no limits, no settings")
}
