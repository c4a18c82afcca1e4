// Package config reads every environment variable either process uses,
// in one place: each reader takes getenv (os.Getenv in the binaries, a map
// lookup in tests), checks what it reads and names the variable in its
// errors. The other packages take the typed settings it returns.
package config

import (
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"fieldbrief/internal/history"
)

// DatabaseURL is DATABASE_URL, for both processes (pgx's own defaults,
// the PG* variables, apply where it leaves something out).
func DatabaseURL(getenv func(string) string) string { return getenv("DATABASE_URL") }

// DatabaseReplicaURL is DATABASE_REPLICA_URL, the web's only: a streaming
// replica of DATABASE_URL's database that page reads use while it keeps up
// (docs/scaling.md, step 3). Empty: every read goes to DATABASE_URL. The
// worker never reads it: the tick must see what it just fired.
func DatabaseReplicaURL(getenv func(string) string) string { return getenv("DATABASE_REPLICA_URL") }

// DatabaseDirectURL is DATABASE_DIRECT_URL, the web's only: a direct
// connection to the primary for what needs a session of its own, the
// migrations and their advisory lock, when DATABASE_URL goes through
// PgBouncer in transaction mode (docs/scaling.md, step 2). Empty: the web
// migrates on DATABASE_URL.
func DatabaseDirectURL(getenv func(string) string) string { return getenv("DATABASE_DIRECT_URL") }

func envDuration(getenv func(string) string, name string, def time.Duration, errs *[]error) time.Duration {
	v := getenv(name)
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		*errs = append(*errs, fmt.Errorf("%s: want a positive duration such as 12h, got %q", name, v))
	}
	return d
}

func envInt(getenv func(string) string, name string, def int, errs *[]error) int {
	v := getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		*errs = append(*errs, fmt.Errorf("%s: want a positive whole number, got %q", name, v))
	}
	return n
}

func envBool(getenv func(string) string, name string, def bool, errs *[]error) bool {
	v := getenv(name)
	if v == "" {
		return def
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		*errs = append(*errs, fmt.Errorf("%s: want true or false, got %q", name, v))
	}
	return b
}

// Workers is WORKERS, the River tasks a worker replica runs at once; set
// is false when it is unset (then the -workers flag's default holds). The
// range is the caller's to check, with the flag's.
func Workers(getenv func(string) string) (n int, set bool, err error) {
	v := getenv("WORKERS")
	if v == "" {
		return 0, false, nil
	}
	n, err = strconv.Atoi(v)
	if err != nil {
		return 0, true, fmt.Errorf("WORKERS=%q is not a whole number", v)
	}
	return n, true, nil
}

// Addr is cmd/web's listen address when -addr is not given: ADDR, else
// :$PORT (as platforms that assign the port set it), else :8080.
func Addr(getenv func(string) string) string {
	if addr := getenv("ADDR"); addr != "" {
		return addr
	}
	if port := getenv("PORT"); port != "" {
		return ":" + port
	}
	return ":8080"
}

// LogLevel is LOG_LEVEL: debug, info (the default), warn or error.
func LogLevel(getenv func(string) string) (slog.Level, error) {
	var lvl slog.Level
	if v := getenv("LOG_LEVEL"); v != "" {
		if err := lvl.UnmarshalText([]byte(v)); err != nil {
			return 0, fmt.Errorf("LOG_LEVEL: %w", err)
		}
	}
	return lvl, nil
}

// Password is FIELDBRIEF_PASSWORD, create-user's password when neither
// -password-stdin nor -password gives one (so it stays out of ps and the
// shell's history).
func Password(getenv func(string) string) string { return getenv("FIELDBRIEF_PASSWORD") }

// HistoryRetention is HISTORY_RETENTION, for both processes: how long the
// history tables keep their months (docs/operations.md, "History
// retention"; docs/configuration.md). Days ("400d") or a Go duration
// ("9600h"); unset is history.DefaultRetention; under 35 days, or
// unparsable, is an error at start-up.
func HistoryRetention(getenv func(string) string) (time.Duration, error) {
	v := getenv("HISTORY_RETENTION")
	if v == "" {
		return history.DefaultRetention, nil
	}
	d, err := history.ParseRetention(v)
	if err != nil {
		return 0, fmt.Errorf("HISTORY_RETENTION: %w", err)
	}
	return d, nil
}
