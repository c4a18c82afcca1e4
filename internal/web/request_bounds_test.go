package web

import (
	"context"
	"encoding/binary"
	"log/slog"
	"math/bits"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/api/apitest"
	"fieldbrief/internal/config"
	"fieldbrief/internal/pglock"
	"fieldbrief/internal/testutil"
	"fieldbrief/internal/tick"
)

// What a client can hold: no lock named by what it sends, and no wait
// without bound (docs/worker.md, "Locks" and "No wait without
// bound").

// pgHash is PostgreSQL's hashtextextended(text, seed) (hash_bytes_extended:
// Bob Jenkins' lookup3 with a 64-bit seed), for the attack below; checked
// against the server's own in TestPGHashMatchesTheServer.
func pgHash(key []byte, seed uint64) uint64 {
	a, b, c := pgHashStart(len(key), seed)
	for len(key) >= 12 {
		a += binary.LittleEndian.Uint32(key[0:])
		b += binary.LittleEndian.Uint32(key[4:])
		c += binary.LittleEndian.Uint32(key[8:])
		a, b, c = pgMix(a, b, c)
		key = key[12:]
	}
	var tail [12]byte
	copy(tail[:], key)
	// The last 0–11 bytes; the lowest byte of c is left for the length.
	switch n := len(key); {
	case n >= 9:
		c += binary.LittleEndian.Uint32(tail[8:]) << 8
		fallthrough
	case n >= 5:
		b += binary.LittleEndian.Uint32(tail[4:])
		fallthrough
	case n >= 1:
		a += binary.LittleEndian.Uint32(tail[0:])
	}
	_, b, c = pgFinal(a, b, c)
	return uint64(b)<<32 | uint64(c)
}

func pgHashStart(n int, seed uint64) (a, b, c uint32) {
	a = 0x9e3779b9 + uint32(n) + 3923095
	b, c = a, a
	if seed != 0 {
		a += uint32(seed >> 32)
		b += uint32(seed)
		a, b, c = pgMix(a, b, c)
	}
	return a, b, c
}

func pgMix(a, b, c uint32) (uint32, uint32, uint32) {
	a -= c
	a ^= bits.RotateLeft32(c, 4)
	c += b
	b -= a
	b ^= bits.RotateLeft32(a, 6)
	a += c
	c -= b
	c ^= bits.RotateLeft32(b, 8)
	b += a
	a -= c
	a ^= bits.RotateLeft32(c, 16)
	c += b
	b -= a
	b ^= bits.RotateLeft32(a, 19)
	a += c
	c -= b
	c ^= bits.RotateLeft32(b, 4)
	b += a
	return a, b, c
}

func pgUnmix(a, b, c uint32) (uint32, uint32, uint32) {
	b -= a
	c ^= bits.RotateLeft32(b, 4)
	c += b
	a -= c
	b ^= bits.RotateLeft32(a, 19)
	b += a
	c -= b
	a ^= bits.RotateLeft32(c, 16)
	a += c
	b -= a
	c ^= bits.RotateLeft32(b, 8)
	c += b
	a -= c
	b ^= bits.RotateLeft32(a, 6)
	b += a
	c -= b
	a ^= bits.RotateLeft32(c, 4)
	a += c
	return a, b, c
}

func pgFinal(a, b, c uint32) (uint32, uint32, uint32) {
	c ^= b
	c -= bits.RotateLeft32(b, 14)
	a ^= c
	a -= bits.RotateLeft32(c, 11)
	b ^= a
	b -= bits.RotateLeft32(a, 25)
	c ^= b
	c -= bits.RotateLeft32(b, 16)
	a ^= c
	a -= bits.RotateLeft32(c, 4)
	b ^= a
	b -= bits.RotateLeft32(a, 14)
	c ^= b
	c -= bits.RotateLeft32(b, 24)
	return a, b, c
}

func pgUnfinal(a, b, c uint32) (uint32, uint32, uint32) {
	c += bits.RotateLeft32(b, 24)
	c ^= b
	b += bits.RotateLeft32(a, 14)
	b ^= a
	a += bits.RotateLeft32(c, 4)
	a ^= c
	c += bits.RotateLeft32(b, 16)
	c ^= b
	b += bits.RotateLeft32(a, 25)
	b ^= a
	a += bits.RotateLeft32(c, 11)
	a ^= c
	c += bits.RotateLeft32(b, 14)
	c ^= b
	return a, b, c
}

// forgeRef finds a 20-character printable reference whose
// hashtextextended(prefix || ref, seed) is target, with a 4-byte prefix
// ("job:"): prefix+ref is two 12-byte blocks, so the hash is
// final(mix(mix(start + block1) + block2)). Run backwards from the target
// (any first word, then unfinal and unmix), the state before block 2 is
// known; block 1 is chosen at random and block 2 is what is left, until
// every byte of it is printable (about one try in 150,000).
func forgeRef(t testing.TB, prefix string, seed uint64, target int64) string {
	require.Len(t, prefix, 4)
	alphabet := []byte("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.")
	rng := rand.New(rand.NewPCG(1, uint64(target)))
	printable := func(w uint32) bool {
		for range 4 {
			if ch := byte(w); ch < 0x21 || ch > 0x7e || ch == '%' || ch == '/' {
				return false
			}
			w >>= 8
		}
		return true
	}
	p := binary.LittleEndian.Uint32([]byte(prefix))
	for try := 0; try < 1<<26; try++ {
		a0, b0, c0 := pgHashStart(4+20, seed)
		af := rng.Uint32()
		ta, tb, tc := pgUnmix(pgUnfinal(af, uint32(uint64(target)>>32), uint32(uint64(target))))
		var head [8]byte
		for i := range head {
			head[i] = alphabet[rng.IntN(len(alphabet))]
		}
		a1, b1, c1 := pgMix(a0+p, b0+binary.LittleEndian.Uint32(head[0:]), c0+binary.LittleEndian.Uint32(head[4:]))
		k3, k4, k5 := ta-a1, tb-b1, tc-c1
		if !printable(k3) || !printable(k4) || !printable(k5) {
			continue
		}
		ref := make([]byte, 0, 20)
		ref = append(ref, head[:]...)
		ref = binary.LittleEndian.AppendUint32(ref, k3)
		ref = binary.LittleEndian.AppendUint32(ref, k4)
		ref = binary.LittleEndian.AppendUint32(ref, k5)
		require.Equal(t, uint64(target), pgHash(append([]byte(prefix), ref...), seed))
		return string(ref)
	}
	t.Fatal("no printable reference found")
	return ""
}

// TestPGHashMatchesTheServer: the Go hash the attack inverts is the
// server's.
func TestPGHashMatchesTheServer(t *testing.T) {
	f := setup(t)
	rng := rand.New(rand.NewPCG(7, 7))
	for n := range 40 {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(0x21 + rng.IntN(0x5e))
		}
		seed := rng.Uint64() >> rng.IntN(64)
		var want int64
		require.NoError(t, f.db.QueryRow(context.Background(), `SELECT hashtextextended($1, $2)`, string(b), int64(seed)).Scan(&want))
		require.Equal(t, uint64(want), pgHash(b, seed), "%q seed %d", b, seed)
	}
}

// waitersOnLocks is how many backends of the test database wait for a
// heavyweight lock of any kind (a table's, a row's, a transaction's).
func (f *fixture) waitersOnLocks() int {
	return f.count(`SELECT count(*) FROM pg_stat_activity
	                 WHERE datname = current_database() AND wait_event_type = 'Lock'`)
}

// waitersOnRowLocks is how many backends of the test database wait for a
// row or transaction lock.
func (f *fixture) waitersOnRowLocks() int {
	return f.count(`SELECT count(*) FROM pg_stat_activity
	                 WHERE datname = current_database() AND wait_event_type = 'Lock'
	                   AND wait_event IN ('transactionid', 'tuple')`)
}

// TestForgedReferenceCannotHoldTheTickLock is the attack: a job reference
// computed so that hashtextextended('job:' || ref, org id), the key the API
// once locked for a write by reference, is the tick's lock key. A PATCH of
// that job then waits on the job's row (held here as an import preview
// held it); while it waits, a worker still ticks, no advisory lock of that
// key is held, and the PATCH answers 503 with Retry-After within its
// bound, changing nothing.
func TestForgedReferenceCannotHoldTheTickLock(t *testing.T) {
	// A lock bound of its own, longer than the server's 4 s: the PATCH must
	// still be waiting when this test sees it wait and ticks, on a slow
	// machine too.
	f := setupConfig(t, func(c *config.Web) { c.LockTimeout = 10 * time.Second })
	ctx := context.Background()
	tickKey, err := pglock.LockKey(pglock.LockTick, 0)
	require.NoError(t, err)
	ref := forgeRef(t, "job:", uint64(f.orgA.ID), tickKey)
	path := "/api/v1/jobs/" + url.PathEscape(ref)

	token := f.newToken(f.orgA, "crm")
	put := f.api(token).Put(path, map[string]any{"customer": "Forged", "arrival_start": "2026-03-05T09:00", "arrival_end": "2026-03-05T10:00"})
	require.Equal(t, http.StatusCreated, put.Code, put.Body)

	// The row is held (as an import preview's upsert held it).
	holder, err := f.db.Begin(ctx)
	require.NoError(t, err)
	defer holder.Rollback(ctx) //nolint:errcheck
	_, err = holder.Exec(ctx, `SELECT id FROM jobs WHERE org_id = $1 AND external_ref = $2 FOR UPDATE`, f.orgA.ID, ref)
	require.NoError(t, err)

	done := make(chan apitest.RawAnswer, 1)
	go func() {
		done <- apitest.Raw(f.ts.URL, token, http.MethodPatch, path, mergePatch, `{"notes": "from the attacker"}`)
	}()
	var early *apitest.RawAnswer
	require.Eventually(t, func() bool {
		select {
		case a := <-done:
			early = &a
			return true
		default:
		}
		return f.waitersOnRowLocks() == 1
	}, testutil.Settle, 10*time.Millisecond, "the PATCH waits for the job's row")
	require.Nil(t, early, "the PATCH answered before it was seen waiting for the row")

	// pg_locks is the cluster's: this database's locks only (other tests tick in theirs).
	require.Zero(t, f.count(`SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 1
	                           AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
	                           AND ((classid::bigint << 32) | objid::bigint) = $1`, tickKey),
		"nobody holds the tick's key while the PATCH waits")
	ticker := &tick.Ticker{DB: f.db, Log: slog.New(slog.DiscardHandler)}
	res, err := ticker.Tick(ctx, f.clock.Now())
	require.NoError(t, err)
	require.True(t, res.Ran, "the worker ticks while the forged PATCH waits")

	a := <-done
	require.NoError(t, a.Err)
	require.Equal(t, http.StatusServiceUnavailable, a.Code, a.Body)
	require.NotEmpty(t, a.Header.Get("Retry-After"))
	require.Contains(t, a.Body, `"code":"unavailable"`)
	// Answered while the row was still held: the request's own bound ended
	// the wait, not the other transaction.
	t.Logf("the blocked PATCH answered %d after %s", a.Code, a.Took)
	require.NoError(t, holder.Rollback(ctx))
	require.Zero(t, f.count(`SELECT count(*) FROM jobs WHERE org_id = $1 AND notes = 'from the attacker'`, f.orgA.ID),
		"the refused PATCH changed nothing")

	// Free again, the same PATCH goes through.
	ok := f.api(token).Call(http.MethodPatch, path, `{"notes": "now"}`, "Content-Type", mergePatch)
	require.Equal(t, http.StatusOK, ok.Code, ok.Body)
}

// serverLockBound gives a fixture the server's own lock bound
// (httpkit.DefaultLockTimeout), not the fixture's minute (testConfig): for
// the tests of what that bound does.
func serverLockBound(c *config.Web) { c.LockTimeout = 0 }

// TestPageBlockedOnARowAnswers503: a board change of a job whose row
// another transaction holds answers 503 with Retry-After, in the reader's
// words, once its lock wait runs out, while the row is still held; nothing
// changed. Through htmx, as the board sends it, and as a plain form.
func TestPageBlockedOnARowAnswers503(t *testing.T) {
	f := setupConfig(t, serverLockBound)
	ctx := context.Background()
	job := f.api(f.newToken(f.orgA, "crm")).Put("/api/v1/jobs/J-1",
		map[string]any{"customer": "Held", "arrival_start": "2026-03-04T09:00", "arrival_end": "2026-03-04T10:00"})
	require.Equal(t, http.StatusCreated, job.Code, job.Body)
	var id int64
	require.NoError(t, f.db.QueryRow(ctx, `SELECT id FROM jobs WHERE org_id = $1 AND external_ref = 'J-1'`, f.orgA.ID).Scan(&id))

	holder, err := f.db.Begin(ctx)
	require.NoError(t, err)
	defer holder.Rollback(ctx) //nolint:errcheck
	_, err = holder.Exec(ctx, `SELECT id FROM jobs WHERE id = $1 FOR UPDATE`, id)
	require.NoError(t, err)

	admin := f.as(&f.adminA)
	path := "/orgs/" + f.orgA.Slug + "/jobs/" + strconv.FormatInt(id, 10) + "/status"
	form := url.Values{"status": {"done"}, "version": {"1"}, "date": {"2026-03-04"}}
	r := admin.htmx().post(path, form)
	require.Equal(t, http.StatusServiceUnavailable, r.Code, r.Body)
	require.NotEmpty(t, r.Header.Get("Retry-After"))
	require.Contains(t, r.Body, "Someone else is changing this right now")
	r = admin.post(path, form)
	require.Equal(t, http.StatusServiceUnavailable, r.Code, r.Body)

	require.NoError(t, holder.Rollback(ctx))
	require.Equal(t, 0, f.count(`SELECT count(*) FROM jobs WHERE id = $1 AND status = 'done'`, id), "nothing changed")
	r = admin.htmx().post(path, form)
	require.Equal(t, http.StatusOK, r.Code, r.Body)
	require.Equal(t, 1, f.count(`SELECT count(*) FROM jobs WHERE id = $1 AND status = 'done'`, id))
}
