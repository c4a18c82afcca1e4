// Package upgrade holds the upgrade test (docs/operations.md, "Upgrades"):
// the previous release's binaries, built from its git tag, run against a
// database migrated to HEAD, beside HEAD's binaries. It has no code of its
// own; see upgrade_test.go.
package upgrade
