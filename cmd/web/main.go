// Command web serves fieldbrief's web app and carries the operator's
// sub-commands: serve (the default), migrate, create-org, create-user,
// seed-demo, webhook-secret, create-token, history-retention and
// citus-distribute. Every sub-command applies pending
// migrations first.
package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgxpool"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/config"
	"fieldbrief/internal/database"
	"fieldbrief/internal/i18n"
	"fieldbrief/internal/schedule"

	_ "time/tzdata" // harmless; zones are loaded from schedule's own embedded rules (TZ_SOURCE)
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop() // a second Ctrl-C kills at once instead of waiting for the graceful shutdown
	}()
	err := run(ctx, os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "web:", err)
		if errors.As(err, new(*usageError)) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

// command is one sub-command. setup declares its flags on fs and returns the
// action, which runs after the flags are parsed.
type command struct {
	name, synopsis, summary string
	setup                   func(fs *flag.FlagSet, getenv func(string) string) action
}

type action func(ctx context.Context, a *app) error

var commands = []command{
	{"serve", "[-addr ADDR]", "serve the web app (the default command)", serveCommand},
	{"migrate", "", "apply pending database migrations and exit", migrateCommand},
	{"create-org", "-slug SLUG -name NAME [-locale en-US]", "create an org (audited) and print its id", createOrgCommand},
	{"create-user", "-email EMAIL [-password-stdin | -password PASSWORD] [-staff] [-org SLUG [-role admin|dispatcher|member]]",
		"create a user (or set an existing user's password), optionally as a member of an org; every change is audited", createUserCommand},
	{"seed-demo", "", "add the demo orgs, people and jobs (refused with FIELDBRIEF_ENV=production); running it again changes nothing", seedDemoCommand},
	{"webhook-secret", "-org SLUG [-rotate]", "print the org's webhook signing secret (created on first use); -rotate replaces it", webhookSecretCommand},
	{"create-token", "-org SLUG -name NAME [-scope read|write]", "create an API token for the org (audited) and print it: it is shown only this once", createTokenCommand},
	{"citus-distribute", "", "on a Citus coordinator with workers, make every table its Citus kind (docs/scaling.md); running it again changes nothing", citusDistributeCommand},
	{"history-retention", "", "make the history months ahead and drop the months older than HISTORY_RETENTION now, as the worker's daily task does, and print each month dropped", historyRetentionCommand},
}

// app is what every action gets: the process's input and outputs, its
// logger and a way to open the database.
type app struct {
	getenv func(string) string
	stdin  io.Reader
	stdout io.Writer
	log    *slog.Logger
}

// usageError is a mistake on the command line: main exits 2 for it.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

func usageErrorf(format string, args ...any) error {
	return &usageError{fmt.Errorf(format, args...)}
}

// run is the whole program with its surroundings passed in, so tests start
// it for real. With no sub-command it serves.
func run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	name, rest := "serve", args
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		name, rest = args[0], args[1:]
	}
	switch name {
	case "help":
		usage(stdout)
		return nil
	case "serve":
		if len(args) > 0 && isHelpFlag(args[0]) {
			usage(stdout)
			return nil
		}
	}
	cmd, ok := lookup(name)
	if !ok {
		usage(stderr)
		return usageErrorf("unknown command %q", name)
	}

	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // we print errors and usage ourselves, once
	act := cmd.setup(fs, getenv)
	commandUsage := func(w io.Writer) {
		fmt.Fprintf(w, "Usage: web %s %s\n\n%s.\n", cmd.name, cmd.synopsis, capitalize(cmd.summary))
		if hasFlags(fs) {
			fmt.Fprintln(w, "\nFlags:")
			fs.SetOutput(w)
			fs.PrintDefaults()
			fs.SetOutput(io.Discard)
		}
		fmt.Fprintln(w, "\nRun 'web help' for every command and the environment variables.")
	}
	if err := fs.Parse(rest); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			commandUsage(stdout)
			return nil
		}
		commandUsage(stderr)
		return &usageError{fmt.Errorf("%s: %w", name, err)}
	}
	if fs.NArg() > 0 {
		commandUsage(stderr)
		return usageErrorf("%s: unexpected argument %q", name, fs.Arg(0))
	}

	level, err := config.LogLevel(getenv)
	if err != nil {
		return usageErrorf("%v", err)
	}
	log := newLogger(stderr, level)
	// Every command may read zones (settings, "generate now", seed-demo):
	// all of them use the rules TZ_SOURCE chose, as the worker does.
	rules, err := config.ZoneRules(getenv)
	if err != nil {
		return fmt.Errorf("zone rules: %w", err)
	}
	schedule.UseZoneRules(rules)
	err = act(ctx, &app{getenv: getenv, stdin: stdin, stdout: stdout, log: log})
	if errors.As(err, new(*usageError)) {
		commandUsage(stderr)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", name, plain(err))
	}
	return nil
}

// plainError shows an application error (a taken slug, an unknown org) by
// its user-facing message (a refusal in English, through the catalog's
// table: i18n.Refusal), without the code, and keeps it in the chain.
type plainError struct{ err *apperr.Error }

func (e plainError) Error() string {
	msg := i18n.English.Message(e.err)
	if msg == "" {
		msg = e.err.Detail
	}
	if name := e.err.FieldName(); name != "" {
		return "-" + name + ": " + msg
	}
	return msg
}

func (e plainError) Unwrap() error { return e.err }

func plain(err error) error {
	var e *apperr.Error
	if errors.As(err, &e) && e.Code != apperr.Internal {
		return plainError{e}
	}
	return err
}

// open connects to DATABASE_URL and applies pending migrations. The caller
// closes the pool.
// The operator's commands use DATABASE_DIRECT_URL when it is set: they are
// short, and migrate under a session advisory lock, which PgBouncer in
// transaction mode would not keep.
func (a *app) open(ctx context.Context, opts ...database.Option) (*pgxpool.Pool, error) {
	return database.Open(ctx, cmp.Or(config.DatabaseDirectURL(a.getenv), config.DatabaseURL(a.getenv)), a.log, opts...)
}

// openWeb is open for serve: when DATABASE_DIRECT_URL is set (DATABASE_URL
// then goes through PgBouncer in transaction mode), the migrations and
// their session advisory lock run on a direct connection, which is closed
// before the pool on DATABASE_URL opens, in the query mode a pooler needs
// (database.BehindPooler; docs/scaling.md, step 2).
func (a *app) openWeb(ctx context.Context, opts ...database.Option) (*pgxpool.Pool, error) {
	direct := config.DatabaseDirectURL(a.getenv)
	if direct == "" {
		return a.open(ctx, opts...)
	}
	migrated, err := a.open(ctx)
	if err != nil {
		return nil, fmt.Errorf("DATABASE_DIRECT_URL: %w", err)
	}
	migrated.Close()
	return database.Connect(ctx, cmp.Or(config.DatabaseURL(a.getenv), database.DefaultURL), append(opts, database.BehindPooler())...)
}

func lookup(name string) (command, bool) {
	for _, c := range commands {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

func isHelpFlag(s string) bool {
	switch s {
	case "-h", "-help", "--help":
		return true
	}
	return false
}

func hasFlags(fs *flag.FlagSet) bool {
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	return n > 0
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func usage(w io.Writer) {
	fmt.Fprint(w, `Usage: web [command] [flags]

fieldbrief's web server and operator commands. Every command first applies
pending database migrations (safe with several replicas starting at once).

Commands:
`)
	for _, c := range commands {
		fmt.Fprintf(w, "  %-12s %s\n", c.name, c.summary)
		if c.synopsis != "" {
			fmt.Fprintf(w, "  %-12s   web %s %s\n", "", c.name, c.synopsis)
		}
	}
	fmt.Fprintf(w, `  %-12s show this help

Environment:
  DATABASE_URL                    PostgreSQL URL (default %s)
  DATABASE_DIRECT_URL             serve: a direct URL of the primary for the migrations, when DATABASE_URL is PgBouncer
                                  in transaction mode (DATABASE_URL's queries then default to cache_describe)
  DATABASE_REPLICA_URL            serve: a streaming replica that signed-in pages read from while it keeps up
  REPLICA_MAX_LAG                 pages read the primary while the replica is further behind (default 10s)
  REPLICA_READ_YOUR_WRITES        after a write a browser reads the primary until the replica has it, this long at most
                                  (default 5s, at least REPLICA_MAX_LAG + 2s)
  ADDR                            serve's listen address when -addr is not given (default :8080)
  PORT                            listen on :PORT when neither -addr nor ADDR is given
  FIELDBRIEF_ENV                  production or development (default development)
  SESSION_KEYS                    comma-separated session signing keys, base64 or hex, 32+ bytes each;
                                  the first signs, all verify; required in production
  SESSION_KEY_FILE                development only: generated key file (default .dev/session.key)
  COOKIE_SECURE                   Secure, __Host- cookies; needs HTTPS (default: true in production)
  SESSION_IDLE_TIMEOUT            sign out after this long unused (default 12h)
  SESSION_ABSOLUTE_TIMEOUT        sign out this long after sign-in (default 168h)
  LOGIN_MAX_FAILURES_PER_ACCOUNT  failed sign-ins for one email from one client IP per hour before further
                                  attempts from there wait 1 s, 2 s, 4 s … up to 15 min (default 10)
  LOGIN_MAX_FAILURES_PER_CLIENT   the same for one client IP over every email (default 1000)
  TRUSTED_PROXIES                 CIDRs of proxies in front of web whose X-Forwarded-For is believed (default: none)
  SMTP_URL                        where mail is sent, e.g. smtp://user:pass@host:587 (default: kept in the outbox)
  MAIL_FROM                       From of every email (default "fieldbrief <briefings@fieldbrief.localhost>")
  BASE_URL                        public address for links in emails and webhooks (default http://localhost:PORT)
  WEBHOOK_ALLOW_PRIVATE_NETWORKS  true lets webhooks use http and reach loopback/private addresses (default false)
  TZ_SOURCE                       zone rules: embedded (the copy built in, the same on every host; default)
                                  or host (the host's zoneinfo: $ZONEINFO or /usr/share/zoneinfo)
  LOG_LEVEL                       debug, info, warn or error (default info)
  FIELDBRIEF_PASSWORD             create-user's password when neither -password-stdin nor -password is given

Run 'web COMMAND -h' for a command's flags.
`, "help", database.DefaultURL)
}

// newLogger logs JSON, or text when stderr is a terminal (a developer's shell).
func newLogger(w io.Writer, level slog.Level) *slog.Logger {
	opts := &slog.HandlerOptions{Level: level}
	if isTerminal(w) {
		return slog.New(slog.NewTextHandler(w, opts))
	}
	return slog.New(slog.NewJSONHandler(w, opts))
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
