package upgrade

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"fieldbrief/internal/demo"
	"fieldbrief/internal/testdb"
	"fieldbrief/internal/testutil"
	"fieldbrief/internal/testutil/freeport"
)

// TestUpgrade is the safe-upgrade check (docs/operations.md, "Upgrades"):
// the previous release (the newest in docs/releases.md before HEAD) must keep working on
// HEAD's schema while both run, as they do during a rolling deploy.
//
//  1. A fresh database is migrated by the previous release's `web migrate`
//     and filled by its `web seed-demo`, as a production database is before
//     the deploy; then HEAD's `web migrate` brings it to HEAD over that data.
//  2. Orgs due every day get two firings; at each, the previous release's
//     `worker -once` and HEAD's run at the same instant, side by side.
//     Both must exit 0 without an error logged, and every due briefing is
//     generated exactly once (one row per org and date, one revision).
//  3. The previous release's web and HEAD's serve the same database; an
//     org admin and platform staff sign in to each and read the main pages:
//     no 5xx, every page 200; a session begun on either web is good on
//     the other (a user's requests reach both during the deploy).
//  4. Writes: the previous release's API creates and changes a job, then
//     HEAD's changes it; 00026's version trigger counts each change.
func TestUpgrade(t *testing.T) {
	root, prev := previousRelease(t)
	t.Logf("previous release %s, checked against HEAD in %s", prev, root)
	dir := t.TempDir()

	// Build both releases at once: the old tree from the tag's git archive
	// (no work tree or checkout of ours changes), HEAD from the work tree.
	oldSrc := filepath.Join(dir, "old-src")
	require.NoError(t, os.MkdirAll(oldSrc, 0o755))
	archive(t, root, prev, oldSrc)
	oldBin, newBin := filepath.Join(dir, "old"), filepath.Join(dir, "new")
	builds := []struct{ src, out string }{{oldSrc, oldBin}, {root, newBin}}
	// Under make test, HEAD's binaries are built (testutil.BinEnv), and the
	// previous release's are kept beside them by its commit: go build links
	// again only when what it would make differs from the file there.
	if built := os.Getenv(testutil.BinEnv); built != "" {
		oldBin, newBin = filepath.Join(built, "release-"+prev), built
		builds = builds[:1]
		builds[0].out = oldBin
	}
	var wg sync.WaitGroup
	errs := make(chan error, len(builds))
	for _, b := range builds {
		wg.Go(func() {
			if err := goBuild(b.src, b.out); err != nil {
				errs <- fmt.Errorf("%s: %w", b.src, err)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}

	ctx := context.Background()
	dbURL := freshDatabase(t)
	env := []string{"DATABASE_URL=" + dbURL, "SESSION_KEY_FILE=" + filepath.Join(dir, "session.key"),
		"BASE_URL=http://fieldbrief.test", "MAIL_FROM=briefings@upgrade.test"}

	// 1. The previous release's schema and data, then HEAD's migrations.
	run(t, env, filepath.Join(oldBin, "web"), "migrate")
	run(t, env, filepath.Join(oldBin, "web"), "seed-demo")
	run(t, env, filepath.Join(newBin, "web"), "migrate")

	db, err := pgxpool.New(ctx, dbURL)
	require.NoError(t, err)
	t.Cleanup(db.Close)

	// 2. Firings, both releases' workers at once.
	const orgs = 6
	seedDueOrgs(t, db, orgs)
	day := time.Now().UTC().AddDate(0, 0, 3)
	first := time.Date(day.Year(), day.Month(), day.Day(), 12, 0, 0, 0, time.UTC)
	oldWorker, newWorker := filepath.Join(oldBin, "worker"), filepath.Join(newBin, "worker")
	// Two firings with both at once (either may take the tick and either
	// may generate what the other enqueued), then one each alone, so each
	// release surely ticks and generates on this schema.
	type firing struct {
		at      time.Time
		workers []string
	}
	firings := []firing{
		{first, []string{oldWorker, newWorker}},
		{first.AddDate(0, 0, 1), []string{oldWorker, newWorker}},
		{first.AddDate(0, 0, 2), []string{oldWorker}},
		{first.AddDate(0, 0, 3), []string{newWorker}},
	}
	var days []time.Time
	for _, f := range firings {
		days = append(days, f.at)
		at := f.at
		var wg sync.WaitGroup
		for _, w := range f.workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				run(t, env, w, "-once", "-now", at.Format(time.RFC3339), "-wait", "10s")
			}()
		}
		wg.Wait()
	}
	var dup, notOnce, missing int
	require.NoError(t, db.QueryRow(ctx, `
		SELECT (SELECT count(*) FROM (SELECT 1 FROM ff_briefings GROUP BY org_id, briefing_date HAVING count(*) > 1) d),
		       (SELECT count(*) FROM ff_briefings b
		         WHERE (SELECT count(*) FROM ff_briefing_revisions r WHERE r.briefing_id = b.id) <> 1
		           AND b.org_id IN (SELECT id FROM orgs WHERE slug LIKE 'upgrade-%')),
		       (SELECT count(*) FROM orgs o CROSS JOIN unnest($1::date[]) AS d(day)
		         WHERE o.slug LIKE 'upgrade-%'
		           AND NOT EXISTS (SELECT 1 FROM ff_briefings b WHERE b.org_id = o.id AND b.briefing_date = d.day AND b.status = 'ready'))`,
		days).Scan(&dup, &notOnce, &missing))
	// No task attempt failed, in either release: River records each
	// failed attempt in river_job.errors (a failed generation is a WARN in
	// the log and a retry, and -once still exits 0).
	rows, err := db.Query(ctx, `SELECT kind, state, errors::text FROM river_job WHERE errors IS NOT NULL OR state NOT IN ('completed', 'scheduled') ORDER BY id`)
	require.NoError(t, err)
	for rows.Next() {
		var kind, state, errs string
		var e *string
		require.NoError(t, rows.Scan(&kind, &state, &e))
		if e != nil {
			errs = *e
		}
		t.Errorf("task %s %s: %s", kind, state, tail(errs))
	}
	require.NoError(t, rows.Err())
	require.Zero(t, dup, "(org, date) pairs with more than one briefing")
	require.Zero(t, notOnce, "briefings not generated exactly once (revisions <> 1)")
	require.Zero(t, missing, "due briefings not generated and ready")

	// 3. Both webs on the same database.
	var slug string
	require.NoError(t, db.QueryRow(ctx, `SELECT slug FROM orgs WHERE slug NOT LIKE 'upgrade-%' ORDER BY id LIMIT 1`).Scan(&slug))
	var date string
	require.NoError(t, db.QueryRow(ctx, `SELECT briefing_date::text FROM ff_briefings b JOIN orgs o ON o.id = b.org_id WHERE o.slug = 'upgrade-1' ORDER BY 1 LIMIT 1`).Scan(&date))
	// Data only HEAD writes: a dispatcher (00029's third role). The old
	// release knows admin and member only; it must read the org with one
	// (the members page lists them) and let the dispatcher read pages, as
	// a member: IsAdmin is false for any role but admin (docs/operations.md,
	// "Upgrades").
	dispatcher := "dispatcher@" + slug + ".test"
	runStdin(t, env, demo.Password+"\n", filepath.Join(newBin, "web"), "create-user", "-email", dispatcher, "-org", slug, "-role", "dispatcher", "-password-stdin")
	bases := map[string]string{}
	for _, r := range []struct{ release, bin string }{{"old", oldBin}, {"new", newBin}} {
		release := r.release
		base := serve(t, env, filepath.Join(r.bin, "web"))
		bases[release] = base
		admin := "admin@" + slug + ".test"
		org := "/orgs/" + slug
		pages(t, release, base, admin, org, org+"/briefings", org+"/board", org+"/jobs", org+"/technicians",
			org+"/members", org+"/settings/fieldforce", org+"/import")
		pages(t, release, base, dispatcher, org, org+"/briefings", org+"/board", org+"/jobs", org+"/technicians")
		// Settings stay the admins' in both releases: the old one's
		// unknown role gets no more than a member's rights.
		code, _ := getPage(t, signIn(t, release, base, dispatcher), base+org+"/settings/fieldforce")
		require.Equal(t, http.StatusForbidden, code, "%s web: a dispatcher's GET of the settings", release)
		pages(t, release, base, demo.StaffEmail, "/", "/staff", "/staff/flags", "/staff/audit",
			"/orgs/upgrade-1/briefings", "/orgs/upgrade-1/briefings/"+date)
	}
	// The previous release writes on HEAD's schema through its API (an
	// INSERT that leaves out 00026's version, an UPDATE its trigger
	// bumps), then HEAD writes the same job: both succeed, each change
	// counts one version, and both webs show the job.
	token := output(t, env, filepath.Join(oldBin, "web"), "create-token", "-org", slug, "-name", "Upgrade test")
	api := func(release, method, path, body string, want int) {
		t.Helper()
		req, err := http.NewRequest(method, bases[release]+"/api/v1"+path, strings.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.Equal(t, want, resp.StatusCode, "%s web: %s %s\n%s", release, method, path, b)
	}
	job := func(customer, tech string) string {
		return fmt.Sprintf(`{"customer": %q, "address": "1 Upgrade Rd", "arrival_start": %q, "arrival_end": %q, "technician_ref": %q}`,
			customer, first.Format("2006-01-02")+"T09:00", first.Format("2006-01-02")+"T10:00", tech)
	}
	api("old", http.MethodPut, "/technicians/T-UPG", `{"name": "Upgrade Tech"}`, http.StatusCreated)
	api("old", http.MethodPut, "/jobs/J-UPG", job("Old One", "T-UPG"), http.StatusCreated)
	api("old", http.MethodPut, "/jobs/J-UPG", job("Old Two", "T-UPG"), http.StatusOK)
	api("new", http.MethodPut, "/jobs/J-UPG", job("New Three", ""), http.StatusOK)
	var version int64
	var customer string
	var jobID int64
	require.NoError(t, db.QueryRow(ctx, `SELECT j.id, j.version, j.customer FROM jobs j JOIN orgs o ON o.id = j.org_id WHERE o.slug = $1 AND j.external_ref = 'J-UPG'`, slug).
		Scan(&jobID, &version, &customer))
	require.Equal(t, "New Three", customer)
	require.EqualValues(t, 3, version, "the job's version after an insert and two changes")
	for _, release := range []string{"old", "new"} {
		pages(t, release, bases[release], "admin@"+slug+".test", fmt.Sprintf("/orgs/%s/jobs/%d", slug, jobID))
	}

	// During the deploy a user's requests reach old and new replicas in
	// turn: a session begun on one is good on the other (cookies do not
	// depend on the port, so this jar sends the old web's to the new).
	for _, from := range []string{"old", "new"} {
		to := map[string]string{"old": "new", "new": "old"}[from]
		c := signIn(t, from, bases[from], "admin@"+slug+".test")
		for _, p := range []string{"/orgs/" + slug + "/briefings", "/orgs/" + slug + "/settings/fieldforce"} {
			resp, err := c.Get(bases[to] + p)
			require.NoError(t, err)
			resp.Body.Close()
			require.Equal(t, http.StatusOK, resp.StatusCode, "signed in on the %s web, GET %s on the %s web", from, p, to)
			require.NotContains(t, resp.Request.URL.Path, "/login", "signed in on the %s web, the %s web sent to sign in", from, to)
		}
	}
}

// previousRelease returns the repository's top directory and the newest v*
// tag that HEAD descends from, HEAD's own tag excluded. Without git history
// or such a tag the test cannot run: a failure under CI=true, so CI never
// passes without checking, and a skip elsewhere.
func previousRelease(t *testing.T) (root, commit string) {
	t.Helper()
	miss := func(format string, args ...any) {
		t.Helper()
		msg := fmt.Sprintf(format, args...)
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s; the upgrade test needs main's history (in CI: a clone that is not shallow)", msg)
		}
		t.Skipf("%s: the upgrade test needs main's history", msg)
	}
	out, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		miss("not a git checkout (git rev-parse: %v)", err)
	}
	root = strings.TrimSpace(string(out))
	releases, err := readReleases(filepath.Join(root, "docs", "releases.md"))
	require.NoError(t, err)
	require.NotEmpty(t, releases, "docs/releases.md lists no release")
	head := gitOut(t, root, "rev-parse", "HEAD")
	// The newest recorded release that HEAD descends from and is not HEAD:
	// a release is checked against the one it replaces.
	for i := len(releases) - 1; i >= 0; i-- {
		r := releases[i]
		if r.commit == head {
			continue
		}
		if exec.Command("git", "-C", root, "cat-file", "-e", r.commit+"^{commit}").Run() != nil {
			miss("release %s (%s) is not in this clone", r.name, r.commit)
		}
		if exec.Command("git", "-C", root, "merge-base", "--is-ancestor", r.commit, "HEAD").Run() == nil {
			t.Logf("previous release: %s", r.name)
			return root, r.commit
		}
	}
	t.Fatalf("no release in docs/releases.md is an ancestor of HEAD (%s)", head)
	return "", ""
}

type release struct{ name, commit string }

// releaseRow is a row of docs/releases.md's table: | v0.N.0 | <40 hex> | …
var releaseRow = regexp.MustCompile(`^\|\s*(v\d+\.\d+\.\d+)\s*\|\s*([0-9a-f]{40})\s*\|`)

// readReleases returns docs/releases.md's releases, oldest first.
func readReleases(path string) ([]release, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read the release record: %w", err)
	}
	var rs []release
	for _, line := range strings.Split(string(b), "\n") {
		if m := releaseRow.FindStringSubmatch(line); m != nil {
			rs = append(rs, release{m[1], m[2]})
		}
	}
	return rs, nil
}

func gitOut(t *testing.T, root string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", root}, args...)...).Output()
	require.NoError(t, err, "git %v", args)
	return strings.TrimSpace(string(out))
}

// archive writes the tree of tag into dir (git archive | tar -x).
func archive(t *testing.T, root, tag, dir string) {
	t.Helper()
	git := exec.Command("git", "-C", root, "archive", "--format=tar", tag)
	tar := exec.Command("tar", "-x", "-C", dir)
	pipe, err := git.StdoutPipe()
	require.NoError(t, err)
	tar.Stdin = pipe
	var gitErr, tarErr bytes.Buffer
	git.Stderr, tar.Stderr = &gitErr, &tarErr
	require.NoError(t, tar.Start())
	require.NoError(t, git.Run(), "git archive %s: %s", tag, gitErr.String())
	require.NoError(t, tar.Wait(), "tar -x: %s", tarErr.String())
}

// goBuild builds cmd/web and cmd/worker of the module in src into out,
// with the same module and build caches as this test: an old tree needs
// its own dependencies, fetched from the module proxy when not cached.
//
// Both are built with -trimpath, as make test builds every test binary
// (docs/testing.md, "How make test schedules them"): without it the build
// cache keys a tree's packages by its directory. The old tree lies in a
// new temporary directory each run, which compiled the whole old release
// again every run (about 110 s of CPU on the 2-core machine,
// docs/benchmarks.md "The test suite"); HEAD's tree lies wherever the
// checkout is, and CI's clone compiled all of HEAD again beside the
// tests. With it, the old release links from the cache from the second
// run on, and HEAD's packages are the ones the test binaries were built
// from. GOFLAGS from the environment is kept (make test's).
func goBuild(src, out string) error {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		goCmd = filepath.Join(os.Getenv("GOROOT"), "bin", "go")
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	cmd := exec.Command(goCmd, "build", "-buildvcs=false", "-trimpath", "-o", out+string(filepath.Separator), "./cmd/web", "./cmd/worker")
	cmd.Dir = src
	// An old go.mod may name an older toolchain: build with this one.
	cmd.Env = append(os.Environ(), "GOFLAGS="+strings.TrimSpace(os.Getenv("GOFLAGS")+" -mod=mod"), "GOTOOLCHAIN=local")
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build: %w\n%s", err, b)
	}
	return nil
}

// freshDatabase creates an empty database (no migrations: the releases
// apply them) and drops it after the test.
func freshDatabase(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	server := testdb.ServerURL(t)
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	name := "upgrade_" + hex.EncodeToString(b)
	admin, err := pgx.Connect(ctx, server)
	require.NoError(t, err)
	_, err = admin.Exec(ctx, "CREATE DATABASE "+name)
	require.NoError(t, err)
	require.NoError(t, admin.Close(ctx))
	t.Cleanup(func() {
		c, err := pgx.Connect(context.Background(), server)
		if err != nil {
			t.Logf("drop %s: %v", name, err)
			return
		}
		defer c.Close(context.Background())
		if _, err := c.Exec(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Logf("drop %s: %v", name, err)
		}
	})
	u, err := url.Parse(server)
	require.NoError(t, err)
	u.Path = "/" + name
	return u.String()
}

// errorLine finds a log line at level ERROR in a binary's JSON log.
var errorLine = regexp.MustCompile(`(?m)^.*"level":"ERROR".*$`)

// run runs a binary to its end: it must exit 0 and log no error.
func run(t *testing.T, env []string, bin string, args ...string) {
	t.Helper()
	runStdin(t, env, "", bin, args...)
}

// output is run returning the binary's standard output, trimmed.
func output(t *testing.T, env []string, bin string, args ...string) string {
	t.Helper()
	return strings.TrimSpace(runStdin(t, env, "", bin, args...))
}

// runStdin is run with stdin as the binary's standard input; it returns
// the standard output.
func runStdin(t *testing.T, env []string, stdin, bin string, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Stdin = strings.NewReader(stdin)
	cmd.Env = append(os.Environ(), env...)
	var stdout, out bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.MultiWriter(&stdout, &out), &out
	start := time.Now()
	done := make(chan error, 1)
	require.NoError(t, cmd.Start())
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(testutil.Settle):
		_ = cmd.Process.Kill()
		err = fmt.Errorf("killed after %v: %w", testutil.Settle, <-done)
	}
	name := rel(bin) + " " + strings.Join(args, " ")
	if err != nil {
		t.Errorf("%s: %v\n%s", name, err, tail(out.String()))
		return stdout.String()
	}
	if m := errorLine.FindString(out.String()); m != "" {
		t.Errorf("%s logged an error: %s", name, m)
	}
	t.Logf("%s: ok in %v", name, time.Since(start).Round(time.Millisecond))
	return stdout.String()
}

// rel names a binary by its release and program: old/worker, new/web.
func rel(bin string) string { return filepath.Base(filepath.Dir(bin)) + "/" + filepath.Base(bin) }

func tail(s string) string {
	if len(s) > 4000 {
		return "…" + s[len(s)-4000:]
	}
	return s
}

// seedDueOrgs adds n orgs (upgrade-1…) due every day at 08:00 UTC, each
// with a technician and a job on every day of the firings, so a briefing
// has content to generate.
func seedDueOrgs(t *testing.T, db *pgxpool.Pool, n int) {
	t.Helper()
	ctx := context.Background()
	_, err := db.Exec(ctx, `INSERT INTO orgs (slug, name) SELECT 'upgrade-' || i, 'Upgrade ' || i FROM generate_series(1, $1) AS i`, n)
	require.NoError(t, err)
	_, err = db.Exec(ctx, `
		INSERT INTO org_module_configs (org_id, module, config_json)
		SELECT id, 'fieldforce', jsonb_build_object(
		         'briefing', jsonb_build_object('timezone', 'Etc/UTC', 'schedule_local_time', '08:00',
		                                        'days', jsonb_build_array('mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun')),
		         'delivery', jsonb_build_object('email', jsonb_build_object('to', jsonb_build_array('dispatch-' || id || '@upgrade.test')),
		                                        'send_within', '24h'))
		  FROM orgs WHERE slug LIKE 'upgrade-%'`)
	require.NoError(t, err)
	_, err = db.Exec(ctx, `INSERT INTO technicians (org_id, name, active) SELECT id, 'Tech of ' || slug, true FROM orgs WHERE slug LIKE 'upgrade-%'`)
	require.NoError(t, err)
	_, err = db.Exec(ctx, `
		INSERT INTO jobs (org_id, technician_id, customer, address, arrival_start, arrival_end, status)
		SELECT t.org_id, t.id, 'Customer ' || d::date, 'Main street', d, d + interval '1 hour', 'scheduled'
		  FROM technicians t JOIN orgs o ON o.id = t.org_id AND o.slug LIKE 'upgrade-%'
		 CROSS JOIN generate_series(date_trunc('day', now()) + interval '3 days 9 hours', date_trunc('day', now()) + interval '6 days 9 hours', interval '1 day') AS d`)
	require.NoError(t, err)
	// The staff user of seed-demo reads these orgs' pages.
	_, err = db.Exec(ctx, `INSERT INTO memberships (user_id, org_id, role)
		SELECT u.id, o.id, 'admin' FROM users u, orgs o WHERE u.email = $1 AND o.slug LIKE 'upgrade-%'`, demo.StaffEmail)
	require.NoError(t, err)
}

// serve starts `web serve` on a free port and returns its base URL once it
// answers /healthz; it is stopped (SIGTERM) at cleanup and must exit 0.
func serve(t *testing.T, env []string, bin string) string {
	t.Helper()
	port, err := freeport.Take()
	require.NoError(t, err)
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	cmd := exec.Command(bin, "serve", "-addr", addr)
	cmd.Env = append(os.Environ(), env...)
	out := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	require.NoError(t, cmd.Start())
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("%s serve: %v\n%s", rel(bin), err, tail(out.String()))
			}
		case <-time.After(testutil.Settle):
			_ = cmd.Process.Kill()
			t.Errorf("%s serve did not stop on SIGTERM", rel(bin))
		}
		if m := errorLine.FindString(out.String()); m != "" {
			t.Errorf("%s serve logged an error: %s", rel(bin), m)
		}
	})
	base := "http://" + addr
	deadline := time.Now().Add(testutil.Settle)
	for {
		select {
		case err := <-done:
			t.Fatalf("%s serve exited: %v\n%s", rel(bin), err, tail(out.String()))
		default:
		}
		if resp, err := http.Get(base + "/healthz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return base
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s serve: no /healthz after %s\n%s", rel(bin), testutil.Settle, tail(out.String()))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

var csrfField = regexp.MustCompile(`name="_csrf" value="([^"]+)"`)

// pages signs email in (demo.Password) on the web at base and reads each
// path: every one must answer 200 after redirects.
func pages(t *testing.T, release, base, email string, paths ...string) {
	t.Helper()
	c := signIn(t, release, base, email)
	for _, p := range paths {
		code, body := getPage(t, c, base+p)
		if code != http.StatusOK {
			t.Errorf("%s web, %s: GET %s = %d\n%s", release, email, p, code, tail(body))
		}
	}
	t.Logf("%s/web: signed in as %s, read %d pages", release, email, len(paths))
}

// getPage GETs u: status code and body after redirects.
func getPage(t *testing.T, c *http.Client, u string) (int, string) {
	t.Helper()
	resp, err := c.Get(u)
	require.NoError(t, err, "GET %s", u)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// signIn signs email in (demo.Password) on the web at base and returns a
// client with that session.
func signIn(t *testing.T, release, base, email string) *http.Client {
	t.Helper()
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	c := &http.Client{Jar: jar, Timeout: testutil.Settle}
	code, body := getPage(t, c, base+"/login")
	require.Equal(t, http.StatusOK, code, "%s GET /login", release)
	m := csrfField.FindStringSubmatch(body)
	require.NotNil(t, m, "%s: no _csrf field on /login", release)
	resp, err := c.PostForm(base+"/login", url.Values{"_csrf": {m[1]}, "email": {email}, "password": {demo.Password}})
	require.NoError(t, err)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s: sign in as %s", release, email)
	require.NotContains(t, resp.Request.URL.Path, "/login", "%s: sign in as %s failed:\n%s", release, email, tail(string(b)))
	return c
}
