package database

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// ReplicaState says whether reads may go to a read replica now, and if not,
// why: the values are a metric's label, so they stay few.
type ReplicaState string

const (
	ReplicaOK          ReplicaState = "ok"          // answering and within MaxLag
	ReplicaLagging     ReplicaState = "lagging"     // replay is more than MaxLag behind the primary
	ReplicaUnreachable ReplicaState = "unreachable" // no answer (down, refused, or too slow to say)
)

// DefaultReplicaCheckEvery is how long a replica's state is believed
// before it is checked again: one query a second per web process, whatever
// the request rate.
const DefaultReplicaCheckEvery = time.Second

// replicaCheckTimeout bounds a check: a replica that takes longer to say
// how far behind it is counts as unreachable.
const replicaCheckTimeout = 500 * time.Millisecond

// Replica is a streaming replica of the primary that the web's page reads
// may use (docs/scaling.md, step 3). It checks its own lag at most once
// per CheckEvery; until the first check answers, and whenever the replica
// fails to answer or lags past MaxLag, reads go to the primary.
type Replica struct {
	Pool       *pgxpool.Pool
	MaxLag     time.Duration
	CheckEvery time.Duration // DefaultReplicaCheckEvery when 0

	mu       sync.Mutex
	state    ReplicaState
	checked  time.Time // when state was learned; zero: never
	checking bool
	lastErr  error
}

// NewReplica watches pool, a replica, allowing it maxLag behind.
func NewReplica(pool *pgxpool.Pool, maxLag time.Duration) *Replica {
	return &Replica{Pool: pool, MaxLag: maxLag, state: ReplicaUnreachable}
}

// State is the replica's state as last checked, checking again when that
// is older than CheckEvery. One caller checks at a time; the others take
// the state already known rather than wait, so a slow replica costs one
// request at most replicaCheckTimeout, not every request.
func (r *Replica) State(ctx context.Context) ReplicaState {
	every := r.CheckEvery
	if every <= 0 {
		every = DefaultReplicaCheckEvery
	}
	r.mu.Lock()
	if r.checking || time.Since(r.checked) < every {
		s := r.state
		r.mu.Unlock()
		return s
	}
	r.checking = true
	r.mu.Unlock()

	s, err := r.check(ctx)
	r.mu.Lock()
	r.state, r.lastErr, r.checked, r.checking = s, err, time.Now(), false
	r.mu.Unlock()
	return s
}

// Failed marks the replica unreachable now (a read could not begin there),
// so the next requests go to the primary until the next check.
func (r *Replica) Failed(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.state, r.lastErr, r.checked = ReplicaUnreachable, err, time.Now()
}

// LastError is why the last check did not find the replica usable, for logs.
func (r *Replica) LastError() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.lastErr
}

// check asks the replica how far its replay is behind. When everything
// received is replayed, the lag is 0 however old the last transaction (a
// quiet primary writes nothing); otherwise it is the age of the last
// transaction replayed, which grows while replay is behind or paused.
// "Everything received" means something only while the replica streams
// from its primary: a replica whose receiver is not streaming (the primary
// gone, the connection lost) has received nothing new and would look
// current forever, and a server not in recovery (promoted, or another
// primary by mistake) is no replica of ours. Both are unusable: pages read
// the primary (found in review).
func (r *Replica) check(ctx context.Context) (ReplicaState, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), replicaCheckTimeout)
	defer cancel()
	var lag *float64
	err := r.Pool.QueryRow(ctx, `
		SELECT CASE
		         WHEN NOT pg_is_in_recovery() THEN NULL
		         WHEN NOT EXISTS (SELECT FROM pg_stat_wal_receiver) THEN NULL
		         WHEN EXISTS (SELECT FROM pg_stat_wal_receiver WHERE status <> 'streaming') THEN NULL
		         WHEN pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn() THEN 0
		         ELSE extract(epoch FROM now() - pg_last_xact_replay_timestamp())
		       END::float8`).Scan(&lag)
	if err != nil {
		return ReplicaUnreachable, fmt.Errorf("check replica lag: %w", err)
	}
	if lag == nil {
		return ReplicaLagging, errors.New("the replica is not in recovery, or not streaming from its primary")
	}
	if behind := time.Duration(*lag * float64(time.Second)); behind > r.MaxLag {
		return ReplicaLagging, fmt.Errorf("replica replay is %s behind (bound %s)", behind.Round(time.Millisecond), r.MaxLag)
	}
	return ReplicaOK, nil
}
