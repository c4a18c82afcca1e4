package database

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
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

// replicaBeginTimeout bounds taking a connection to the replica and
// beginning a page's transaction there: a replica that hangs (its disk
// frozen, its process stopped: the kernel still answers TCP) must not hold
// pages for as long as the browser waits. Past it the page reads the
// primary and the replica counts as unreachable until its next check.
const replicaBeginTimeout = time.Second

// maxMarks bounds the primary's positions a Replica remembers: one a check,
// so with checks every second a minute of them.
const maxMarks = 64

// Replica is a streaming replica of the primary that the web's page reads
// may use (docs/scaling.md, step 3). It checks its own lag at most once
// per CheckEvery; until the first check answers, and whenever the replica
// fails to answer or lags past MaxLag, reads go to the primary.
//
// Lag is measured by WAL position, not by the replica's own account: each
// check reads the primary's write position first, then the
// replica's replay position. The replica holds everything committed on the
// primary before the latest check whose primary position it has replayed,
// so its lag is at most the age of that check (an upper bound, to within a
// check's interval). A replica that believes itself current — everything
// it received replayed — while the primary has moved on (a link that
// dropped silently keeps its receiver "streaming" until
// wal_receiver_timeout, a minute by default) is seen lagging once the
// bound passes (found in review).
type Replica struct {
	Pool       *pgxpool.Pool
	Primary    *pgxpool.Pool // where the primary's WAL position is read
	MaxLag     time.Duration
	CheckEvery time.Duration // DefaultReplicaCheckEvery when 0
	// CheckTimeout bounds one check (replicaCheckTimeout when 0): a
	// replica slower than that to say how far behind it is counts as
	// unreachable.
	CheckTimeout time.Duration

	mu       sync.Mutex
	state    ReplicaState
	checked  time.Time // when state was learned; zero: never
	checking bool
	lastErr  error
	replayed LSN    // the replica's replay position at the last check that read it
	marks    []mark // the primary's positions at recent checks, oldest first
}

// mark is the primary's WAL position read at a check, and when: everything
// committed before at is at or before lsn.
type mark struct {
	at  time.Time
	lsn LSN
}

// NewReplica watches pool, a replica of primary, allowing it maxLag behind.
func NewReplica(pool, primary *pgxpool.Pool, maxLag time.Duration) *Replica {
	return &Replica{Pool: pool, Primary: primary, MaxLag: maxLag, state: ReplicaUnreachable}
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

// Replayed reports whether the replica had replayed the primary's WAL up
// to lsn at its last check: a browser that wrote at lsn sees its write
// there (read your writes).
func (r *Replica) Replayed(lsn LSN) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.replayed >= lsn
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

// check reads the primary's WAL position, then the replica's replay
// position, and measures the lag from the marks (Replica). A server not in
// recovery (promoted, or another primary by mistake) is unusable, and so
// is a replica whose receiver says it is not streaming — a status only
// roles with pg_read_all_stats can see; for others the positions tell.
func (r *Replica) check(ctx context.Context) (ReplicaState, error) {
	bound := r.CheckTimeout
	if bound <= 0 {
		bound = replicaCheckTimeout
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), bound)
	defer cancel()
	at := time.Now()
	primary, err := primaryWritten(ctx, r.Primary)
	if err != nil {
		return ReplicaUnreachable, err
	}
	var usable bool
	var replay *string
	err = r.Pool.QueryRow(ctx, `
		SELECT pg_is_in_recovery() AND NOT EXISTS (SELECT FROM pg_stat_wal_receiver WHERE status <> 'streaming'),
		       pg_last_wal_replay_lsn()::text`).Scan(&usable, &replay)
	if err != nil {
		return ReplicaUnreachable, fmt.Errorf("check replica lag: %w", err)
	}
	if !usable || replay == nil {
		return ReplicaLagging, errors.New("the replica is not in recovery, or not streaming from its primary")
	}
	replayed, err := ParseLSN(*replay)
	if err != nil {
		return ReplicaUnreachable, fmt.Errorf("check replica lag: %w", err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.replayed = replayed
	r.marks = append(r.marks, mark{at: at, lsn: primary})
	if len(r.marks) > maxMarks {
		r.marks = slices.Delete(r.marks, 0, len(r.marks)-maxMarks)
	}
	for i := len(r.marks) - 1; i >= 0; i-- {
		if r.marks[i].lsn <= replayed {
			if behind := time.Since(r.marks[i].at); behind > r.MaxLag {
				return ReplicaLagging, fmt.Errorf("replica replay is up to %s behind (bound %s)", behind.Round(time.Millisecond), r.MaxLag)
			}
			return ReplicaOK, nil
		}
	}
	return ReplicaLagging, fmt.Errorf("replica replay (%s) is behind every primary position of the last %s", replayed,
		time.Since(r.marks[0].at).Round(time.Millisecond))
}

// primaryWritten is the primary's WAL write position now
// (pg_current_wal_lsn): what a replica can have received. A commit is at
// or before it once written (at once with synchronous_commit on; within
// wal_writer_delay, 200 ms, with it off).
func primaryWritten(ctx context.Context, primary *pgxpool.Pool) (LSN, error) {
	return primaryLSN(ctx, primary, `SELECT pg_current_wal_lsn()::text`)
}

// CommittedPosition is the primary's WAL insert position now
// (pg_current_wal_insert_lsn): every transaction committed before the
// call is at or before it, whatever synchronous_commit says. Read your
// writes waits for the replica to replay this far.
func CommittedPosition(ctx context.Context, primary *pgxpool.Pool) (LSN, error) {
	return primaryLSN(ctx, primary, `SELECT pg_current_wal_insert_lsn()::text`)
}

func primaryLSN(ctx context.Context, primary *pgxpool.Pool, sql string) (LSN, error) {
	var s string
	if err := primary.QueryRow(ctx, sql).Scan(&s); err != nil {
		return 0, fmt.Errorf("the primary's WAL position: %w", err)
	}
	return ParseLSN(s)
}

// LSN is a WAL position (PostgreSQL's pg_lsn), ordered as the WAL is.
type LSN uint64

// MaxLSN is past every position: a write whose position is unknown waits
// for the replica as long as its bound allows.
const MaxLSN = LSN(^uint64(0))

// ParseLSN reads a pg_lsn as PostgreSQL prints it ("16/B374D848").
func ParseLSN(s string) (LSN, error) {
	hi, lo, ok := strings.Cut(s, "/")
	if !ok || len(hi) == 0 || len(hi) > 8 || len(lo) == 0 || len(lo) > 8 {
		return 0, fmt.Errorf("not a WAL position: %.40q", s)
	}
	h, err := strconv.ParseUint(hi, 16, 32)
	if err != nil {
		return 0, fmt.Errorf("not a WAL position: %.40q", s)
	}
	l, err := strconv.ParseUint(lo, 16, 32)
	if err != nil {
		return 0, fmt.Errorf("not a WAL position: %.40q", s)
	}
	return LSN(h<<32 | l), nil
}

// String prints the position as PostgreSQL does.
func (l LSN) String() string { return fmt.Sprintf("%X/%X", uint64(l)>>32, uint64(l)&0xFFFFFFFF) }
