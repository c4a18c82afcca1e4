// Package upgrade holds the upgrade test (docs/operations.md, "Upgrades"):
// the previous release's binaries, built from git history at its commit in
// docs/releases.md, run against a database migrated to HEAD, beside HEAD's
// binaries. It has no code of its own; see upgrade_test.go.
package upgrade
