package database

import (
	"fmt"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
)

// insertOnly is River's client without queues, workers or a pool: it only
// inserts tasks inside the caller's transaction (InsertTx, InsertManyTx), so
// one serves the whole process. Domain stores take it from here instead of
// each building a River client of their own (docs/worker.md, "Tasks").
var insertOnly = sync.OnceValues(func() (*river.Client[pgx.Tx], error) {
	c, err := river.NewClient(riverpgxv5.New(nil), &river.Config{})
	if err != nil {
		return nil, fmt.Errorf("river insert client: %w", err)
	}
	return c, nil
})

// InsertClient returns the process's insert-only River client: use it with
// InsertTx/InsertManyTx in a transaction of your own.
func InsertClient() (*river.Client[pgx.Tx], error) { return insertOnly() }
