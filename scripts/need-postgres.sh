#!/usr/bin/env bash
# Makes sure scripts/pg.sh will find a PostgreSQL: fine when DATABASE_URL is
# set, when server binaries are in /usr/lib/postgresql/*/bin ($PG_BIN), or
# when a server answers on 127.0.0.1:$PG_PROBE_PORT (default 5432) as user
# postgres without a password. Otherwise, when we are root on a Debian-like
# system, installs Debian's `postgresql` package (pg.sh then starts a
# throwaway cluster of its own). Says what it does.
#
# Usage: scripts/need-postgres.sh [--missing]
#   --missing  only print the Debian package to install (nothing when none
#              is needed) and exit 0; .ci/run collects these to install
#              everything with one apt-get update.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
probe_port=${PG_PROBE_PORT:-5432}
say() { echo "need-postgres.sh: $*" >&2; }
# shellcheck source=scripts/pg-lib.sh
source "$root/scripts/pg-lib.sh"

found() {
	if [[ -n ${DATABASE_URL:-} ]]; then
		why="DATABASE_URL is set: using it"
	elif bin=$(pg_bin); then
		why="server binaries in $bin ($("$bin/postgres" --version 2>/dev/null || echo 'version unknown'))"
	elif answers "$probe_port"; then
		why="a server answers on 127.0.0.1:$probe_port"
	else
		return 1
	fi
}

# pg_dump and pg_restore, for the restore drill (internal/worker/restore_test.go);
# the server package brings them, a server found otherwise may not.
has_dump() { command -v pg_dump >/dev/null 2>&1 || compgen -G '/usr/lib/postgresql/*/bin/pg_dump' >/dev/null; }

if [[ ${1:-} == --missing ]]; then
	if ! found; then
		echo postgresql
	elif ! has_dump; then
		echo postgresql-client
	fi
	exit 0
fi

if found; then
	say "$why"
	exit 0
fi
say "DATABASE_URL is unset, no server answers on 127.0.0.1:$probe_port as postgres without a password,"
say "and there are no server binaries in ${PG_BIN:-/usr/lib/postgresql/*/bin}: trying to install Debian's postgresql package"
if ! "$root/scripts/apt-install.sh" postgresql; then
	say "could not install PostgreSQL. Either:"
	say "  - install the server as root: apt-get install -y postgresql (pg.sh then runs a throwaway cluster), or"
	say "  - start a server on 127.0.0.1:5432 that lets user postgres in without a password, or"
	say "  - set DATABASE_URL=postgres://USER:PASSWORD@HOST:PORT/DB to a server you have"
	exit 1
fi
bin=$(pg_bin) || { say "installed postgresql, but there are still no server binaries in /usr/lib/postgresql/*/bin"; exit 1; }
say "installed $("$bin/postgres" --version)"
