package daylinks_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/database"
	"fieldbrief/internal/daylinks"
	"fieldbrief/internal/schedule"
	"fieldbrief/internal/testdb"
	"fieldbrief/internal/testutil"
)

type fixture struct {
	*testutil.Fixture
	store *daylinks.Store
}

func setup(t *testing.T) fixture {
	f := testutil.Setup(t)
	return fixture{Fixture: f, store: &daylinks.Store{DB: f.DB}}
}

func (f fixture) issue(orgID, techID int64, date string, zone string, now time.Time) string {
	f.T.Helper()
	tok, err := daylinks.Issue(f.Ctx, f.DB, orgID, techID, testutil.Date(date), testutil.MustZone(zone), now, "")
	require.NoError(f.T, err)
	return tok
}

func notFound(t *testing.T, err error) {
	t.Helper()
	require.Error(t, err)
	assert.Equal(t, apperr.NotFound, apperr.Code(err), "%v", err)
}

func TestIssueAndOpen(t *testing.T) {
	f := setup(t)
	org := f.Org("acme", "")
	tech := f.Tech(org, "Ana", true)
	now := testutil.UTC("2026-11-26T12:30:00Z")
	tok := f.issue(org, tech, "2026-11-26", "America/Chicago", now)

	assert.Len(t, tok, daylinks.TokenLen)
	assert.NotContains(t, tok, "=")
	assert.Equal(t, "https://fb.example/t/"+tok, daylinks.URL("https://fb.example/", tok))

	l, err := f.store.Open(f.Ctx, tok, now)
	require.NoError(t, err)
	assert.Equal(t, org, l.OrgID)
	assert.Equal(t, "acme", l.OrgName)
	assert.Equal(t, tech, l.TechnicianID)
	assert.Equal(t, "Ana", l.TechnicianName)
	assert.Equal(t, testutil.Date("2026-11-26"), l.Date)
	assert.Equal(t, "America/Chicago", l.Zone)
	// The end of Fri 27 Nov in Chicago (CST, UTC−6).
	assert.Equal(t, testutil.UTC("2026-11-28T06:00:00Z"), l.ExpiresAt.UTC())

	// The database holds the token's hash, never the token.
	assert.Zero(t, f.Count(`SELECT count(*) FROM technician_day_links WHERE position($1::bytea in token_hash) > 0`, []byte(tok)))
	assert.Equal(t, 1, f.Count(`SELECT count(*) FROM technician_day_links WHERE token_hash = sha256($1::bytea)`, []byte(tok)))
}

func TestTamperedTokens(t *testing.T) {
	f := setup(t)
	org := f.Org("acme", "")
	tech := f.Tech(org, "Ana", true)
	now := testutil.UTC("2026-11-26T12:30:00Z")
	tok := f.issue(org, tech, "2026-11-26", "UTC", now)

	flip := []byte(tok)
	flip[10] ^= 1 // still base64url, another token
	if flip[10] == '-' || flip[10] == '_' {
		flip[10] = 'A'
	}
	for name, bad := range map[string]string{
		"one character changed": string(flip),
		"shortened":             tok[:len(tok)-1],
		"lengthened":            tok + "A",
		"padded":                tok[:len(tok)-1] + "=",
		"not base64url":         strings.Repeat("!", daylinks.TokenLen),
		"empty":                 "",
		"upper-cased":           strings.ToUpper(tok),
	} {
		if bad == tok {
			continue
		}
		_, err := f.store.Open(f.Ctx, bad, now)
		notFound(t, err)
		assert.NotContains(t, err.Error(), tok, name)
	}
	_, err := f.store.Open(f.Ctx, tok, now)
	require.NoError(t, err)
}

// A link expires at the end of the following local day, counted in the
// org's zone across a DST change: the spring-forward day is 23 hours and
// the fall-back day 25.
func TestExpiryAcrossDST(t *testing.T) {
	f := setup(t)
	org := f.Org("acme", "")
	tech := f.Tech(org, "Ana", true)

	for _, c := range []struct {
		date, issued, expires string
	}{
		// Sat 7 Mar; New York springs forward on Sun 8 Mar: ends Mon 9 Mar 00:00 EDT.
		{"2026-03-07", "2026-03-07T11:00:00Z", "2026-03-09T04:00:00Z"},
		// Sat 31 Oct; falls back on Sun 1 Nov: ends Mon 2 Nov 00:00 EST.
		{"2026-10-31", "2026-10-31T11:00:00Z", "2026-11-02T05:00:00Z"},
	} {
		expires := testutil.UTC(c.expires)
		assert.Equal(t, expires, daylinks.Expiry(testutil.Date(c.date), testutil.MustZone("America/New_York")).UTC(), c.date)
		tok := f.issue(org, tech, c.date, "America/New_York", testutil.UTC(c.issued))

		l, err := f.store.Open(f.Ctx, tok, expires.Add(-time.Second))
		require.NoError(t, err, c.date)
		assert.Equal(t, expires, l.ExpiresAt.UTC())
		_, err = f.store.Open(f.Ctx, tok, expires)
		notFound(t, err)
	}

	// A re-send of a date whose links are over makes none.
	_, err := daylinks.Issue(f.Ctx, f.DB, org, tech, testutil.Date("2026-03-07"), testutil.MustZone("America/New_York"),
		testutil.UTC("2026-03-09T04:00:00Z"), "")
	require.ErrorIs(t, err, daylinks.ErrExpired)
}

func TestDeactivatedOrDeletedTechnician(t *testing.T) {
	f := setup(t)
	org := f.Org("acme", "")
	ana := f.Tech(org, "Ana", true)
	bo := f.Tech(org, "Bo", true)
	now := testutil.UTC("2026-11-26T12:30:00Z")
	anaTok := f.issue(org, ana, "2026-11-26", "UTC", now)
	boTok := f.issue(org, bo, "2026-11-26", "UTC", now)

	_, err := f.DB.Exec(f.Ctx, `UPDATE technicians SET active = false WHERE id = $1`, ana)
	require.NoError(t, err)
	_, err = f.store.Open(f.Ctx, anaTok, now)
	notFound(t, err)

	_, err = f.DB.Exec(f.Ctx, `DELETE FROM technicians WHERE id = $1`, bo)
	require.NoError(t, err)
	_, err = f.store.Open(f.Ctx, boTok, now)
	notFound(t, err)
	assert.Zero(t, f.Count(`SELECT count(*) FROM technician_day_links WHERE technician_id = $1`, bo))

	// Active again: the deactivation revoked the link for good; a new one opens.
	_, err = f.DB.Exec(f.Ctx, `UPDATE technicians SET active = true WHERE id = $1`, ana)
	require.NoError(t, err)
	_, err = f.store.Open(f.Ctx, anaTok, now)
	notFound(t, err)
	anaTok = f.issue(org, ana, "2026-11-26", "UTC", now)
	_, err = f.store.Open(f.Ctx, anaTok, now)
	require.NoError(t, err)
	// Revoked is over too.
	_, err = f.DB.Exec(f.Ctx, `UPDATE technician_day_links SET revoked_at = $1`, now)
	require.NoError(t, err)
	_, err = f.store.Open(f.Ctx, anaTok, now)
	notFound(t, err)
}

// TestRevokedWhenTheReasonEnds: a change of email, a deactivation or a
// raised link generation ends every link issued before it, whoever
// wrote the change; other changes and other technicians' links do not;
// a link issued in a transaction that raced the change ends with it.
func TestRevokedWhenTheReasonEnds(t *testing.T) {
	f := setup(t)
	org := f.Org("acme", "")
	ana := f.Tech(org, "Ana", true)
	bo := f.Tech(org, "Bo", true)
	now := testutil.UTC("2026-11-26T12:30:00Z")
	opens := func(tok string) bool {
		_, err := f.store.Open(f.Ctx, tok, now)
		if err != nil {
			notFound(t, err)
		}
		return err == nil
	}
	exec := func(sql string, args ...any) {
		t.Helper()
		_, err := f.DB.Exec(f.Ctx, sql, args...)
		require.NoError(t, err)
	}
	anaTok, boTok := f.issue(org, ana, "2026-11-26", "UTC", now), f.issue(org, bo, "2026-11-26", "UTC", now)
	exec(`UPDATE technicians SET name = 'Ana R', phone = '+1 555 0100' WHERE id = $1`, ana)
	require.True(t, opens(anaTok), "a change of name or phone revoked the link")
	exec(`UPDATE technicians SET email = 'ana@new.example' WHERE id = $1`, ana)
	require.False(t, opens(anaTok), "a change of email left the link open")
	require.True(t, opens(boTok), "another technician's link was revoked")

	// Issued in a transaction that read the technician before a change
	// that committed after it: revoked all the same.
	tx, err := f.DB.Begin(f.Ctx)
	require.NoError(t, err)
	defer func() { _ = tx.Rollback(f.Ctx) }() // a no-op once committed
	raced, err := daylinks.Issue(f.Ctx, tx, org, ana, testutil.Date("2026-11-26"), time.UTC, now, "")
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() {
		_, err := f.DB.Exec(f.Ctx, `UPDATE technicians SET email = 'ana@newer.example' WHERE id = $1`, ana)
		done <- err
	}()
	require.NoError(t, tx.Commit(f.Ctx))
	require.NoError(t, <-done)
	require.False(t, opens(raced), "a link issued beside a change of email outlived it")

	// The version a form holds does not move with a revocation alone.
	var version int64
	require.NoError(t, f.DB.QueryRow(f.Ctx, `SELECT version FROM technicians WHERE id = $1`, bo).Scan(&version))
	exec(`UPDATE technicians SET link_generation = link_generation + 1 WHERE id = $1`, bo)
	require.False(t, opens(boTok))
	require.Equal(t, version, int64(f.Count(`SELECT version FROM technicians WHERE id = $1`, bo)), "revoking made open forms stale")
}

func TestOrgsApart(t *testing.T) {
	f := setup(t)
	acme := f.Org("acme", "")
	other := f.Org("other", "")
	ana := f.Tech(acme, "Ana", true)
	zed := f.Tech(other, "Zed", true)
	now := testutil.UTC("2026-11-26T12:30:00Z")

	// No link for another org's technician, nor for one that is gone.
	_, err := daylinks.Issue(f.Ctx, f.DB, acme, zed, testutil.Date("2026-11-26"), time.UTC, now, "")
	require.ErrorIs(t, err, daylinks.ErrNoTechnician)
	_, err = daylinks.Issue(f.Ctx, f.DB, acme, zed+1000, testutil.Date("2026-11-26"), time.UTC, now, "")
	require.ErrorIs(t, err, daylinks.ErrNoTechnician)
	assert.Zero(t, f.Count(`SELECT count(*) FROM technician_day_links`))

	f.issue(acme, ana, "2026-11-26", "UTC", now)
	zedTok := f.issue(other, zed, "2026-11-26", "UTC", now)

	// The other org's token opens its own technician's day and nothing else.
	l, err := f.store.Open(f.Ctx, zedTok, now)
	require.NoError(t, err)
	assert.Equal(t, other, l.OrgID)
	assert.Equal(t, zed, l.TechnicianID)

	// Each org lists its own links only.
	acmeLinks, err := f.store.List(f.Ctx, acme, daylinks.Filter{})
	require.NoError(t, err)
	require.Len(t, acmeLinks, 1)
	assert.Equal(t, ana, acmeLinks[0].TechnicianID)
	none, err := f.store.List(f.Ctx, acme, daylinks.Filter{TechnicianID: zed})
	require.NoError(t, err)
	assert.Empty(t, none)
}

func TestEverySendMintsItsOwnLink(t *testing.T) {
	f := setup(t)
	org := f.Org("acme", "")
	ana := f.Tech(org, "Ana", true)
	bo := f.Tech(org, "Bo", true)
	now := testutil.UTC("2026-11-26T12:30:00Z")

	first := f.issue(org, ana, "2026-11-26", "UTC", now)
	second := f.issue(org, ana, "2026-11-26", "UTC", now.Add(time.Hour))
	assert.NotEqual(t, first, second)
	for _, tok := range []string{first, second} {
		_, err := f.store.Open(f.Ctx, tok, now.Add(2*time.Hour))
		require.NoError(t, err)
	}
	f.issue(org, bo, "2026-11-27", "UTC", now)

	day, err := f.store.List(f.Ctx, org, daylinks.Filter{Date: testutil.Date("2026-11-26")})
	require.NoError(t, err)
	require.Len(t, day, 2)
	assert.Equal(t, now.Add(time.Hour), day[0].CreatedAt.UTC(), "newest first")
	assert.Equal(t, "Ana", day[0].TechnicianName)
	assert.True(t, day[0].Live(now))
	assert.False(t, day[0].Live(day[0].ExpiresAt))

	bos, err := f.store.List(f.Ctx, org, daylinks.Filter{TechnicianID: bo})
	require.NoError(t, err)
	require.Len(t, bos, 1)
	assert.Equal(t, schedule.Date{Year: 2026, Month: time.November, Day: 27}, bos[0].Date)
}

func TestBounded(t *testing.T) {
	f := setup(t)
	org := f.Org("acme", "")
	ana := f.Tech(org, "Ana", true)
	now := testutil.UTC("2026-11-26T12:30:00Z")

	// An old, long-expired link goes with the next issue in the org.
	f.issue(org, ana, "2026-09-01", "UTC", testutil.UTC("2026-09-01T06:00:00Z"))
	var newest string
	for i := range daylinks.MaxPerDay + 3 {
		newest = f.issue(org, ana, "2026-11-26", "UTC", now.Add(time.Duration(i)*time.Second))
	}
	assert.Equal(t, daylinks.MaxPerDay, f.Count(`SELECT count(*) FROM technician_day_links WHERE briefing_date = '2026-11-26'`))
	assert.Zero(t, f.Count(`SELECT count(*) FROM technician_day_links WHERE briefing_date = '2026-09-01'`))
	_, err := f.store.Open(f.Ctx, newest, now.Add(time.Hour))
	require.NoError(t, err)
}

// TestOpenReadsThePrimary: a page whose reads go to a replica that has not
// replayed a revocation yet does not open the revoked link: Open reads the
// primary, not the request's read transaction. The "replica" is a second
// database holding the link as it was before the revocation.
func TestOpenReadsThePrimary(t *testing.T) {
	f := setup(t)
	org := f.Org("acme", "")
	ana := f.Tech(org, "Ana", true)
	now := testutil.UTC("2026-11-26T12:30:00Z")
	tok := f.issue(org, ana, "2026-11-26", "UTC", now)

	stale := &testutil.Fixture{T: t, Ctx: f.Ctx, DB: testdb.New(t)}
	require.Equal(t, org, stale.Org("acme", ""))
	require.Equal(t, ana, stale.Tech(org, "Ana", true))
	var link struct {
		date             time.Time
		zone             string
		hash             []byte
		created, expires time.Time
		generation       int64
	}
	require.NoError(t, f.DB.QueryRow(f.Ctx, `
		SELECT briefing_date, timezone, token_hash, created_at, expires_at, generation FROM technician_day_links`).
		Scan(&link.date, &link.zone, &link.hash, &link.created, &link.expires, &link.generation))
	_, err := stale.DB.Exec(f.Ctx, `
		INSERT INTO technician_day_links (org_id, technician_id, briefing_date, timezone, token_hash, created_at, expires_at, generation)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, org, ana, link.date, link.zone, link.hash, link.created, link.expires, link.generation)
	require.NoError(t, err)

	ctx, rt := database.WithReplicaReadTx(f.Ctx, f.DB, stale.DB, 0, func(err error) { t.Errorf("replica refused: %v", err) })
	defer rt.End(ctx)
	_, err = f.store.Open(ctx, tok, now)
	require.NoError(t, err)
	_, err = f.DB.Exec(f.Ctx, `UPDATE technicians SET active = false WHERE id = $1`, ana)
	require.NoError(t, err)
	_, err = f.store.Open(ctx, tok, now)
	notFound(t, err)
}

// TestIssuedOnlyToTheCurrentAddress: a link for an address is minted only
// while it is the active technician's: after the address changed (between
// a send's checks and its mint), or once they are deactivated, none is.
func TestIssuedOnlyToTheCurrentAddress(t *testing.T) {
	f := setup(t)
	acme := f.Org("acme", "")
	ana := f.Tech(acme, "Ana", true)
	now := testutil.UTC("2026-11-26T12:30:00Z")
	_, err := f.DB.Exec(f.Ctx, `UPDATE technicians SET email = 'ana@new.test' WHERE id = $1`, ana)
	require.NoError(t, err)

	_, err = daylinks.Issue(f.Ctx, f.DB, acme, ana, testutil.Date("2026-11-26"), time.UTC, now, "ana@old.test")
	require.ErrorIs(t, err, daylinks.ErrNoTechnician, "not to the address she had")
	tok, err := daylinks.Issue(f.Ctx, f.DB, acme, ana, testutil.Date("2026-11-26"), time.UTC, now, "ANA@new.test")
	require.NoError(t, err)
	require.NotEmpty(t, tok)

	_, err = f.DB.Exec(f.Ctx, `UPDATE technicians SET active = false WHERE id = $1`, ana)
	require.NoError(t, err)
	_, err = daylinks.Issue(f.Ctx, f.DB, acme, ana, testutil.Date("2026-11-26"), time.UTC, now, "ana@new.test")
	require.ErrorIs(t, err, daylinks.ErrNoTechnician, "not once she is deactivated")
}
