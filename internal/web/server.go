// Package web is the HTTP face of fieldbrief: the org admin console, the
// staff console, health and metrics. Handlers follow one shape: who is the
// user → one store call scoped by them → render, redirect or error. Errors
// become HTTP statuses in one place (httpkit.StatusOf) and answers in
// errors.go. The JSON API is internal/api, mounted here (routes.go).
package web

import (
	"cmp"
	"log/slog"
	"net/http"
	"runtime"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/labstack/echo/v4"

	"fieldbrief/internal/accounts"
	"fieldbrief/internal/api"
	"fieldbrief/internal/audit"
	"fieldbrief/internal/auth"
	"fieldbrief/internal/briefing"
	"fieldbrief/internal/config"
	"fieldbrief/internal/database"
	"fieldbrief/internal/daylinks"
	"fieldbrief/internal/delivery"
	"fieldbrief/internal/field"
	"fieldbrief/internal/fieldimport"
	"fieldbrief/internal/flags"
	"fieldbrief/internal/httpkit"
	"fieldbrief/internal/tenants"
	"fieldbrief/internal/tokens"
	"fieldbrief/internal/unsubscribe"
	"fieldbrief/internal/webhooks"
)

// Server holds the dependencies handlers use.
type Server struct {
	cfg            config.Web
	log            *slog.Logger
	db             *pgxpool.Pool
	reads          *httpkit.Reads // requests' read transactions, on the replica when set (UseReplica)
	tenants        *tenants.Store
	accounts       *accounts.Store
	tokens         *tokens.Store
	webhooks       *webhooks.Store
	audit          *audit.Store
	flags          *flags.Store
	unsubscribes   *unsubscribe.Store
	briefings      *briefing.Store
	deliver        *delivery.Store
	field          *field.Store
	imports        *fieldimport.Store
	sender         *delivery.Sender // the settings page's test sends
	sessions       *auth.Sessions
	throttle       *auth.Throttle
	hashes         *auth.HashGate            // bounds the sign-ins hashing at once
	dayLimits      *httpkit.Limiters[string] // the day link page's, per client address
	dayLinks       *daylinks.Store
	admission      *httpkit.Admission // requests served at once
	dbLimits       database.Limits
	requestTimeout time.Duration
	csrf           httpkit.CSRF
	now            func() time.Time
	echo           *echo.Echo
	bodyCaps       map[string]bodyCap // routes with a body cap of their own, by "METHOD /path" (capBody)
	api            *api.API           // the JSON API, mounted at /api/v1 (routes.go)
}

// New builds the server and registers every route.
func New(cfg config.Web, db *pgxpool.Pool, log *slog.Logger) (*Server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.APIRate == 0 {
		cfg.APIRate = config.DefaultAPIRate
	}
	if cfg.APIBurst == 0 {
		cfg.APIBurst = config.DefaultAPIBurst
	}
	if cfg.MaxInFlight == 0 {
		cfg.MaxInFlight = int(db.Config().MaxConns) // a request holds one connection at a time
	}
	if cfg.MaxQueue == 0 {
		cfg.MaxQueue = httpkit.DefaultQueuePerSlot * cfg.MaxInFlight
	}
	if cfg.QueueWait == 0 {
		cfg.QueueWait = httpkit.DefaultQueueWait
	}
	briefings, err := briefing.NewStore(db)
	if err != nil {
		return nil, err
	}
	deliver, err := delivery.NewStore(db)
	if err != nil {
		return nil, err
	}
	// A hand-built config.Web (tests) leaves From and BaseURL empty: it gets
	// the worker's defaults, so a test send looks like the real one.
	sender, err := delivery.NewSender(db, cfg.Settings, log)
	if err != nil {
		return nil, err
	}
	s := &Server{
		cfg:     cfg,
		log:     log,
		db:      db,
		tenants: &tenants.Store{DB: db, AllowPrivateWebhooks: cfg.AllowPrivateWebhooks},
		// Production without SMTP_URL: account emails would only be kept
		// in the staff-readable outbox, so they are refused (docs/security.md, "Account emails and the staff outbox").
		accounts:     &accounts.Store{DB: db, MailOff: cfg.Production && cfg.SMTPURL == ""},
		tokens:       &tokens.Store{DB: db},
		webhooks:     &webhooks.Store{DB: db, AllowPrivate: cfg.AllowPrivateWebhooks},
		audit:        &audit.Store{DB: db},
		flags:        &flags.Store{DB: db},
		unsubscribes: &unsubscribe.Store{DB: db},
		briefings:    briefings,
		deliver:      deliver,
		field:        &field.Store{DB: db},
		imports:      &fieldimport.Store{DB: db},
		sender:       sender,
		sessions: auth.NewSessions(db, auth.Options{
			Keys:            cfg.SessionKeys,
			Secure:          cfg.SecureCookies,
			IdleTimeout:     cfg.IdleTimeout,
			AbsoluteTimeout: cfg.AbsoluteTimeout,
			PoolWait:        cfg.PoolWait,
		}),
		throttle: &auth.Throttle{DB: db, PerAccount: cfg.MaxLoginFailuresPerAccount, PerClient: cfg.MaxLoginFailuresPerClient},
		// Two hashes per core keeps the cores busy and memory at about
		// 19 MiB × slots; a short queue absorbs a burst, the rest get 503.
		hashes:    auth.NewHashGate(2*runtime.GOMAXPROCS(0), 8*runtime.GOMAXPROCS(0), 2*time.Second),
		dayLimits: httpkit.NewLimiters[string](dayLinkRate, dayLinkBurst, maxDayLinkLimiters),
		dayLinks:  &daylinks.Store{DB: db},
		admission: httpkit.NewAdmission(cfg.MaxInFlight, cfg.MaxQueue, cfg.QueueWait),
		dbLimits: database.Limits{Lock: cmp.Or(cfg.LockTimeout, httpkit.DefaultLockTimeout),
			Statement: cmp.Or(cfg.StatementTimeout, httpkit.DefaultStatementTimeout)},
		requestTimeout: cmp.Or(cfg.RequestTimeout, httpkit.DefaultRequestTimeout),
		csrf:           httpkit.CSRF{Secure: cfg.SecureCookies, ContextKey: ctxCSRF, Skip: api.Serves},
		reads: &httpkit.Reads{DB: db, Log: log, SecureCookies: cfg.SecureCookies, Wait: cfg.PoolWait,
			Skip: noReadTx, Primary: api.Serves, Untracked: sessionFree},
		now:      time.Now,
		echo:     echo.New(),
		bodyCaps: map[string]bodyCap{},
	}
	s.api, err = api.New(api.Deps{DB: db, Tenants: s.tenants, Tokens: s.tokens, Field: s.field, Briefings: briefings,
		Rate: cfg.APIRate, Burst: cfg.APIBurst, FeedSettle: cfg.FeedSettle,
		Now: func() time.Time { return s.now() }}) // UseClock's clock, whenever it is set
	if err != nil {
		return nil, err
	}
	s.echo.HideBanner = true
	s.echo.HidePort = true
	s.echo.HTTPErrorHandler = s.handleError
	s.echo.IPExtractor = httpkit.IPExtractor(cfg.TrustedProxies)
	s.routes()
	return s, nil
}

// MaxInFlight is how many requests the server serves at once.
func (s *Server) MaxInFlight() int { return s.cfg.MaxInFlight }

// ServeHTTP makes the server an http.Handler. HEAD is served wherever GET
// is (httpkit.HeadAsGet).
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	httpkit.HeadAsGet(s.echo).ServeHTTP(w, r)
}

// Routes is every route the server answers, with its method: what the
// browser tests' accessibility sweep checks its page list against.
func (s *Server) Routes() []*echo.Route { return s.echo.Routes() }

// UseClock makes now the server's clock: every page, session and API answer
// that needs "now" reads it (time is the caller's: docs/scheduling.md, "Time
// comes from the caller"). cmd/web never calls it (the host's clock); the
// browser tests do, so that a page about "today" does not depend on the
// hour they run at. Call it before serving.
func (s *Server) UseClock(now func() time.Time) {
	s.now = now
}
