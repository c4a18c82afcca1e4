package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/audit"
	"fieldbrief/internal/history"
	"fieldbrief/internal/testdb"
	"fieldbrief/internal/testutil"
	"fieldbrief/internal/tokens"
)

// auditLog reads the audit entries after id `after` as "action target
// org=ID old new", oldest first, and returns the last id seen.
func auditLog(t *testing.T, pool *pgxpool.Pool, after int64) ([]string, int64) {
	t.Helper()
	rows, err := pool.Query(context.Background(), `
		SELECT id, actor_id IS NULL, actor_email, action, target, coalesce(org_id, 0),
		       coalesce(old_value::text, '-'), coalesce(new_value::text, '-')
		FROM audit_log WHERE id > $1 ORDER BY id`, after)
	require.NoError(t, err)
	defer rows.Close()
	var out []string
	last := after
	for rows.Next() {
		var id, org int64
		var noActorID bool
		var actor, action, target, oldV, newV string
		require.NoError(t, rows.Scan(&id, &noActorID, &actor, &action, &target, &org, &oldV, &newV))
		require.True(t, noActorID, "CLI changes are made by the system actor")
		require.Equal(t, audit.System.Email, actor)
		out = append(out, fmt.Sprintf("%s %s org=%d %s %s", action, target, org, oldV, newV))
		last = id
	}
	require.NoError(t, rows.Err())
	return out, last
}

// Every change create-org and create-user make is audited, one entry per
// change, in the same transaction; a re-run that changes nothing (or a
// command that fails) records nothing; no entry holds a password or hash.
func TestCLIChangesAreAudited(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := newCLI(t, testdb.URL(t))
	pool := connect(t, c.env["DATABASE_URL"])
	var last int64
	var acme int64
	expect := func(want ...string) {
		t.Helper()
		var got []string
		got, last = auditLog(t, pool, last)
		for i := range want {
			want[i] = strings.ReplaceAll(want[i], "ACME", fmt.Sprint(acme))
		}
		if len(want) == 0 {
			require.Empty(t, got)
			return
		}
		require.Equal(t, want, got)
	}

	c.ok("create-org", "-slug", "acme", "-name", "Acme Field Services")
	require.NoError(t, pool.QueryRow(ctx, `SELECT id FROM orgs WHERE slug = 'acme'`).Scan(&acme))
	expect(`org.create acme org=ACME - {"name": "Acme Field Services", "slug": "acme", "locale": "en-US"}`)
	require.Error(t, c.run(ctx, "create-org", "-slug", "acme", "-name", "Acme again").err)
	expect()

	out := c.ok("create-user", "-email", "ada@acme.test", "-password", "pw-1-violet-harbor-tuesday", "-org", "acme", "-role", "admin")
	require.Contains(t, out, "(created)")
	require.Contains(t, out, "as admin (added)")
	expect(`user.create ada@acme.test org=0 - {"email": "ada@acme.test", "staff": false}`,
		`membership.set ada@acme.test org=ACME - {"role": "admin"}`)

	out = c.ok("create-user", "-email", "ada@acme.test", "-password", "pw-1-violet-harbor-tuesday", "-org", "acme", "-role", "admin")
	require.Contains(t, out, "(unchanged)")
	require.Contains(t, out, "as admin (unchanged)")
	expect()

	out = c.ok("create-user", "-email", "ADA@acme.test", "-password", "pw-2-violet-harbor-tuesday")
	require.Contains(t, out, "(password changed)")
	expect(`user.password.reset ada@acme.test org=0 - -`)

	out = c.ok("create-user", "-email", "ada@acme.test", "-password", "pw-2-violet-harbor-tuesday", "-staff")
	require.Contains(t, out, "staff=true (staff granted)")
	expect(`user.staff.grant ada@acme.test org=0 {"staff": false} {"staff": true}`)
	c.ok("create-user", "-email", "ada@acme.test", "-password", "pw-2-violet-harbor-tuesday", "-staff")
	c.ok("create-user", "-email", "ada@acme.test", "-password", "pw-2-violet-harbor-tuesday") // staff is never taken away
	expect()

	out = c.ok("create-user", "-email", "ada@acme.test", "-password", "pw-3-violet-harbor-tuesday", "-org", "acme", "-role", "member")
	require.Contains(t, out, "as member (was admin)")
	expect(`user.password.reset ada@acme.test org=0 - -`,
		`membership.set ada@acme.test org=ACME {"role": "admin"} {"role": "member"}`)

	c.ok("create-user", "-email", "root@fieldbrief.test", "-password", "pw-4-violet-harbor-tuesday", "-staff")
	expect(`user.create root@fieldbrief.test org=0 - {"email": "root@fieldbrief.test", "staff": true}`,
		`user.staff.grant root@fieldbrief.test org=0 {"staff": false} {"staff": true}`)
	c.ok("create-user", "-email", "root@fieldbrief.test", "-password", "pw-4-violet-harbor-tuesday", "-staff")
	expect()

	require.Error(t, c.run(ctx, "create-user", "-email", "eve@acme.test", "-password", "pw-5-violet-harbor-tuesday", "-org", "nowhere").err)
	expect()

	var leaks int
	require.NoError(t, pool.QueryRow(ctx, `
		SELECT count(*) FROM audit_log
		WHERE concat_ws(' ', old_value::text, new_value::text, target, reason) ~ '(pw-[0-9]|argon2|password_hash)'`).Scan(&leaks))
	require.Zero(t, leaks, "no password or hash in the audit log")
}

// create-user takes the password from stdin or the environment too, so it
// need not appear in the process list.
func TestCreateUserPasswordSources(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := newCLI(t, testdb.URL(t))
	store := testutil.NewStores(connect(t, c.env["DATABASE_URL"]))
	signsIn := func(email, password string) {
		t.Helper()
		_, err := store.Accounts.Authenticate(ctx, email, password)
		require.NoError(t, err, "%s with %q", email, password)
	}

	r := c.runStdin(ctx, "a password from stdin \r\nsecond line\n", "create-user", "-email", "in@acme.test", "-password-stdin")
	require.NoError(t, r.err, r.stderr)
	signsIn("in@acme.test", "a password from stdin ") // only the line ending is dropped

	r = c.runStdin(ctx, "no newline at the end", "create-user", "-email", "eof@acme.test", "-password-stdin")
	require.NoError(t, r.err, r.stderr)
	signsIn("eof@acme.test", "no newline at the end")

	c.env["FIELDBRIEF_PASSWORD"] = "from-env-violet-harbor"
	c.ok("create-user", "-email", "env@acme.test")
	signsIn("env@acme.test", "from-env-violet-harbor")
	c.ok("create-user", "-email", "flag@acme.test", "-password", "from-flag-lantern-otter") // an explicit flag wins
	signsIn("flag@acme.test", "from-flag-lantern-otter")
	delete(c.env, "FIELDBRIEF_PASSWORD")

	for _, tc := range []struct {
		stdin string
		args  []string
	}{
		{"", []string{"create-user", "-email", "x@acme.test", "-password-stdin"}},
		{"\nsecond", []string{"create-user", "-email", "x@acme.test", "-password-stdin"}},
		{"pw\n", []string{"create-user", "-email", "x@acme.test", "-password-stdin", "-password", "pw"}},
		{"", []string{"create-user", "-email", "x@acme.test"}},
	} {
		r := c.runStdin(ctx, tc.stdin, tc.args...)
		require.True(t, isUsage(r.err), "%v with stdin %q: want a usage error, got %v", tc.args, tc.stdin, r.err)
	}
	require.Contains(t, c.ok("create-user", "-h"), "-password-stdin")
	require.Contains(t, c.ok("help"), "FIELDBRIEF_PASSWORD")
}

// webhook-secret prints the org's secret, the same each time until -rotate
// replaces it; the rotation is audited by the system actor, without the value.
func TestWebhookSecretCommand(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := newCLI(t, testdb.URL(t))
	pool := connect(t, c.env["DATABASE_URL"])
	c.ok("create-org", "-slug", "acme", "-name", "Acme Field Services")
	c.ok("create-org", "-slug", "globex", "-name", "Globex")
	var acme int64
	require.NoError(t, pool.QueryRow(ctx, `SELECT id FROM orgs WHERE slug = 'acme'`).Scan(&acme))
	_, last := auditLog(t, pool, 0)

	first := strings.TrimSpace(c.ok("webhook-secret", "-org", "acme"))
	require.Regexp(t, `^whsec_[A-Za-z0-9+/]{43}=$`, first)
	require.Equal(t, first, strings.TrimSpace(c.ok("webhook-secret", "-org", "acme")), "created once, then printed")
	require.NotEqual(t, first, strings.TrimSpace(c.ok("webhook-secret", "-org", "globex")))
	got, last := auditLog(t, pool, last)
	require.Empty(t, got, "printing is not a change")

	rotated := strings.TrimSpace(c.ok("webhook-secret", "-org", "acme", "-rotate"))
	require.Regexp(t, `^whsec_`, rotated)
	require.NotEqual(t, first, rotated)
	require.Equal(t, rotated, strings.TrimSpace(c.ok("webhook-secret", "-org", "acme")))
	got, _ = auditLog(t, pool, last)
	require.Equal(t, []string{fmt.Sprintf(`webhook.secret.rotate webhook org=%d - {"webhook_secret": "rotated"}`, acme)}, got)

	unknown := c.run(ctx, "webhook-secret", "-org", "nowhere")
	require.Error(t, unknown.err)
	require.False(t, isUsage(unknown.err))
	require.Equal(t, `webhook-secret: no org "nowhere"`, unknown.err.Error())
	require.Empty(t, unknown.stdout)

	missing := c.run(ctx, "webhook-secret")
	require.True(t, isUsage(missing.err), "no -org: %v", missing.err)
	require.Contains(t, c.ok("help"), "webhook-secret")
}

// create-token prints a new token each time (audited by the system actor,
// without the token), which then authenticates for its org only.
func TestCreateTokenCommand(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := newCLI(t, testdb.URL(t))
	pool := connect(t, c.env["DATABASE_URL"])
	c.ok("create-org", "-slug", "acme", "-name", "Acme Field Services")
	var acme int64
	require.NoError(t, pool.QueryRow(ctx, `SELECT id FROM orgs WHERE slug = 'acme'`).Scan(&acme))
	_, last := auditLog(t, pool, 0)

	token := strings.TrimSpace(c.ok("create-token", "-org", "acme", "-name", "Dispatch sync"))
	require.Regexp(t, `^fb_[A-Z2-7]{52}$`, token)
	got, last := auditLog(t, pool, last)
	require.Len(t, got, 1)
	require.Regexp(t, fmt.Sprintf(`^api_token\.create api token \d+ org=%d - \{"hint": "%s", "name": "Dispatch sync"\}$`, acme, token[:11]), got[0])
	require.NotContains(t, got[0], token[11:])
	rec, err := (&tokens.Store{DB: pool}).Authenticate(ctx, token, time.Now())
	require.NoError(t, err)
	require.Equal(t, acme, rec.OrgID)
	require.Equal(t, "Dispatch sync", rec.Name)
	require.Equal(t, tokens.ScopeWrite, rec.Scope, "write unless told")
	_, last = auditLog(t, pool, last)
	reports := strings.TrimSpace(c.ok("create-token", "-org", "acme", "-name", "Reports", "-scope", "read"))
	rec, err = (&tokens.Store{DB: pool}).Authenticate(ctx, reports, time.Now())
	require.NoError(t, err)
	require.Equal(t, tokens.ScopeRead, rec.Scope)
	_, last = auditLog(t, pool, last)

	dup := c.run(ctx, "create-token", "-org", "acme", "-name", "Dispatch sync")
	require.Error(t, dup.err)
	require.Empty(t, dup.stdout)
	unknown := c.run(ctx, "create-token", "-org", "nowhere", "-name", "x")
	require.Equal(t, `create-token: no org "nowhere"`, unknown.err.Error())
	got, _ = auditLog(t, pool, last)
	require.Empty(t, got, "refusals change nothing")
	for _, args := range [][]string{{"create-token"}, {"create-token", "-org", "acme"}, {"create-token", "-org", "acme", "-name", "a\nb"},
		{"create-token", "-org", "acme", "-name", "Admin", "-scope", "admin"}} {
		require.True(t, isUsage(c.run(ctx, args...).err), "%v", args)
	}
	require.Contains(t, c.ok("help"), "create-token")
}

// create-org -locale sets the org's locale (default en-US); a tag we do
// not support is a usage error naming the flag, and creates nothing.
func TestCreateOrgLocale(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := newCLI(t, testdb.URL(t))
	pool := connect(t, c.env["DATABASE_URL"])
	localeOf := func(slug string) string {
		var l string
		require.NoError(t, pool.QueryRow(ctx, `SELECT locale FROM orgs WHERE slug = $1`, slug).Scan(&l))
		return l
	}
	require.Contains(t, c.ok("create-org", "-h"), "-locale")

	require.Contains(t, c.ok("create-org", "-slug", "northwind", "-name", "Northwind"), "locale=en-US")
	require.Equal(t, "en-US", localeOf("northwind"))
	require.Contains(t, c.ok("create-org", "-slug", "bergmann", "-name", "Bergmann Haustechnik", "-locale", "de-DE"), "locale=de-DE")
	require.Equal(t, "de-DE", localeOf("bergmann"))
	c.ok("create-org", "-slug", "sol", "-name", "Sol", "-locale", "es_us") // case and "_" forgiven
	require.Equal(t, "es-US", localeOf("sol"))

	for _, bad := range []string{"de", "pt-BR", "klingon", "", "en-US; DROP TABLE orgs"} {
		r := c.run(ctx, "create-org", "-slug", "nope", "-name", "Nope", "-locale", bad)
		require.True(t, isUsage(r.err), "-locale %q: want a usage error, got %v", bad, r.err)
		require.Contains(t, r.err.Error(), "-locale", "-locale %q", bad)
		require.Contains(t, r.err.Error(), "supported locales", "-locale %q", bad)
	}
	var n int
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM orgs WHERE slug = 'nope'`).Scan(&n))
	require.Zero(t, n)
}

// create-user keeps the password rule of every other way of setting one
// (accounts.CheckNewPassword): too short and common passwords are refused
// in English, with no user left behind, before anything is written.
func TestCreateUserRefusesAWeakPassword(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := newCLI(t, testdb.URL(t))
	pool := connect(t, c.env["DATABASE_URL"])
	for pw, want := range map[string]string{
		"texas":             "at least 12 characters",
		"password1234":      "too easy to guess",
		"ada@acme.test1234": "too easy to guess", // the person's own address
	} {
		r := c.run(ctx, "create-user", "-email", "ada@acme.test", "-password", pw)
		require.Error(t, r.err, pw)
		require.False(t, isUsage(r.err), pw)
		require.Equal(t, apperr.Invalid, apperr.Code(r.err), pw)
		require.Contains(t, r.err.Error(), want, pw)
	}
	var users int
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM users`).Scan(&users))
	require.Zero(t, users)
	c.ok("create-user", "-email", "ada@acme.test", "-password", "violet-harbor-tuesday-41")
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM users`).Scan(&users))
	require.Equal(t, 1, users)
}

// history-retention drops, now, the history months older than
// HISTORY_RETENTION and keeps the others; a retention under the minimum
// is a usage error and drops nothing.
func TestHistoryRetentionCommand(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := newCLI(t, testdb.URL(t))
	pool := connect(t, c.env["DATABASE_URL"])
	old := history.Month(time.Now().AddDate(-2, 0, 0))
	_, err := history.EnsureMonths(ctx, pool, old, old)
	require.NoError(t, err)
	exists := func(m time.Time) bool {
		var ok bool
		require.NoError(t, pool.QueryRow(ctx, `SELECT to_regclass($1) IS NOT NULL`, history.PartitionName("ff_deliveries", m)).Scan(&ok))
		return ok
	}
	require.True(t, exists(old))

	c.env["HISTORY_RETENTION"] = "10d"
	bad := c.run(ctx, "history-retention")
	require.True(t, isUsage(bad.err), "%v", bad.err)
	require.True(t, exists(old), "a refused retention drops nothing")

	c.env["HISTORY_RETENTION"] = "400d"
	out := c.ok("history-retention")
	require.Contains(t, out, "dropped "+history.PartitionName("ff_deliveries", old)+" (ff_deliveries, "+old.Format("2006-01")+")")
	require.False(t, exists(old))
	require.True(t, exists(history.Month(time.Now())))
	require.Regexp(t, `history kept from \d{4}-\d{2}-01 \(HISTORY_RETENTION 400 days\)`, out)
	require.Contains(t, c.ok("help"), "history-retention")
}
