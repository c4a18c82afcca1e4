#!/usr/bin/env bash
# Prints the DATABASE_URL `make test` runs the suite against, on stdout
# (messages go to stderr):
#
#   1. DATABASE_URL set  → printed as is (the suite runs where you say).
#   2. server binaries   → the suite's own throwaway cluster (scripts/pg.sh
#                          on port $PG_TEST_PORT, default the first free port
#                          from 55434), its data in
#                          RAM (/dev/shm) when that is a tmpfs with room,
#                          else under .pgdata-test/; started or reused.
#   3. otherwise         → scripts/pg.sh as `make run` uses it (a server on
#                          127.0.0.1:5432).
#
# Why a cluster of its own (docs/testing.md, "The suite's PostgreSQL"):
# every test has a database of its own, and PostgreSQL 15 ends each DROP
# DATABASE with a checkpoint; on a server that keeps its files on disk with
# fsync on (the machine's, at default settings), about a thousand
# checkpoints a run, each flushing every other test's writes, made the
# suite wait on the disk. The suite's cluster keeps nothing worth keeping:
# no fsync, no full-page writes, its files in RAM.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
say() { echo "test-pg.sh: $*" >&2; }

if [[ -n ${DATABASE_URL:-} ]]; then
	echo "$DATABASE_URL"
	exit 0
fi

# shellcheck source=scripts/pg-lib.sh
source "$root/scripts/pg-lib.sh"
if ! pg_bin >/dev/null; then
	say "no PostgreSQL server binaries here for the suite's own cluster: using what scripts/pg.sh finds"
	exec "$root/scripts/pg.sh" postgres
fi

# RAM when /dev/shm is a tmpfs with at least 4 GiB free (a run's databases
# come and go: some 30 live at once, 25 MB each).
dir=$root/.pgdata-test
if [[ -z ${PG_TEST_DIR:-} ]] && [[ $(stat -f -c %T /dev/shm 2>/dev/null) == tmpfs ]] &&
	(($(df -Pk /dev/shm | awk 'NR == 2 {print $4}') >= 4 * 1024 * 1024)); then
	# One per checkout and user: two checkouts' suites never share one.
	dir=/dev/shm/fieldbrief-test-$(id -u)-$(printf '%s' "$root" | cksum | cut -d' ' -f1)
fi
dir=${PG_TEST_DIR:-$dir}

# The port: PG_TEST_PORT, else the first free one from 55434 up. A cluster
# already running in $dir keeps its own (pg.sh reads it); another
# checkout's suite may hold 55434.
port=${PG_TEST_PORT:-}
if [[ -z $port ]]; then
	for ((port = 55434; port < 55534; port++)); do
		# Free when nothing accepts a connection there.
		timeout 2 bash -c ">/dev/tcp/127.0.0.1/$port" 2>/dev/null || break
	done
fi

url=$(PG_PROBE_PORT=0 PG_LOCAL_PORT=$port PG_DATA_DIR=$dir "$root/scripts/pg.sh" postgres)

# No autovacuum: a run creates and drops some 1,250 databases that live
# seconds each; the autovacuum launcher still sent a worker into each one
# (connecting and reading its 2,200 relations' statistics), and analysed
# tables a test had filled and was about to drop. Set on every start, so a
# cluster made by an earlier version of this script gets it too
# (docs/testing.md, "The suite's PostgreSQL").
psql_cmd -X -q -w -v ON_ERROR_STOP=1 "$url" >/dev/null <<'SQL' || say "could not turn autovacuum off (the suite still runs)"
ALTER SYSTEM SET autovacuum = off;
SELECT pg_reload_conf();
SQL
echo "$url"
