// Package chaos holds the fault-injection tests of the briefing pipeline
// (docs/guarantees.md, "When things break"): kill -9 of a worker during a tick,
// pg_terminate_backend of every worker connection, a PostgreSQL restart,
// and a minute-by-minute simulation of several replicas across DST changes.
//
// Everything is in its _test.go files. `go test ./internal/chaos/` (part
// of `make test`) runs a short version of each scenario; `make chaos`
// (CHAOS=full) runs the full counts and prints the figures.
package chaos
