#!/usr/bin/env bash
# Prints a DATABASE_URL that works on this machine, on stdout (messages go
# to stderr), so `make run` and `make test` need no setup:
#
#   1. DATABASE_URL set        → printed as is.
#   2. a server answers on 127.0.0.1:$PG_PROBE_PORT (default 5432)
#                              → postgres://postgres@127.0.0.1:5432/DB
#   3. otherwise               → a throwaway cluster of our own under .pgdata/
#                                (port $PG_LOCAL_PORT, default 55432), started
#                                or reused; stop it with scripts/stop-pg.sh.
#
# Usage: scripts/pg.sh [DB]   (default fieldbrief; created when missing)
#
# Overrides, mostly for testing this script: PG_PROBE_PORT, PG_LOCAL_PORT,
# PG_DATA_DIR (default <repo>/.pgdata), PG_BIN (default: newest
# /usr/lib/postgresql/*/bin).
set -euo pipefail

db=${1:-fieldbrief}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
probe_port=${PG_PROBE_PORT:-5432}
local_port=${PG_LOCAL_PORT:-55432}
dir=${PG_DATA_DIR:-$root/.pgdata}

say() { echo "pg.sh: $*" >&2; }
die() { say "$*"; exit 1; }

if [[ -n ${DATABASE_URL:-} ]]; then
	echo "$DATABASE_URL"
	exit 0
fi

[[ $db =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] || die "database name must be a plain identifier, got '$db'"

# shellcheck source=scripts/pg-lib.sh
source "$root/scripts/pg-lib.sh"

# ensure_db creates the database on the server at port $1 when missing.
ensure_db() {
	local port=$1
	if ! have_psql; then
		say "no psql here to check that database '$db' exists; assuming it does"
		return
	fi
	local exists
	exists=$(psql_cmd -X -q -w -h 127.0.0.1 -p "$port" -U postgres -d postgres -tAc \
		"SELECT 1 FROM pg_database WHERE datname = '$db'") || die "cannot query the server on port $port"
	if [[ $exists != 1 ]]; then
		say "creating database $db on port $port"
		# Two callers at once may race; the loser's "already exists" is fine.
		psql_cmd -X -q -w -h 127.0.0.1 -p "$port" -U postgres -d postgres -c "CREATE DATABASE \"$db\"" >/dev/null 2>&1 ||
			[[ $(psql_cmd -X -q -w -h 127.0.0.1 -p "$port" -U postgres -d postgres -tAc \
				"SELECT 1 FROM pg_database WHERE datname = '$db'") == 1 ]] ||
			die "could not create database $db"
	fi
}

url() { echo "postgres://postgres@127.0.0.1:$1/$db?sslmode=disable"; }

# PG_PROBE_PORT=0 looks for no server: our own cluster (scripts/test-pg.sh).
if [[ $probe_port != 0 ]] && answers "$probe_port"; then
	ensure_db "$probe_port"
	url "$probe_port"
	exit 0
fi

# --- our own throwaway cluster -------------------------------------------

bin=$(pg_bin) || die "no PostgreSQL server binaries in ${PG_BIN:-/usr/lib/postgresql/*/bin} and no server on 127.0.0.1:$probe_port.
  scripts/need-postgres.sh installs them when run as root (Debian: apt-get install -y postgresql); or set DATABASE_URL."

# initdb and postgres refuse to run as root: as root, the cluster belongs
# to the postgres user, who must be able to reach the data directory.
as_owner=()
if [[ $(id -u) == 0 ]]; then
	id postgres >/dev/null 2>&1 || die "running as root, but there is no 'postgres' user to own the cluster"
	command -v runuser >/dev/null 2>&1 || die "running as root, but runuser (util-linux) is missing"
	as_owner=(runuser -u postgres --)
fi
run_owner() { "${as_owner[@]}" "$@"; }

[[ -L $dir ]] && dir=$(readlink -f "$dir") # set up by an earlier run, see below
mkdir -p "$dir"
if [[ ${#as_owner[@]} -gt 0 ]] && ! run_owner test -w "$dir" 2>/dev/null; then
	chown postgres: "$dir"
	if ! run_owner test -w "$dir" 2>/dev/null; then
		# A parent directory (e.g. /root) is closed to postgres: keep the
		# cluster in a directory it can reach and point $dir at it.
		alt=/var/tmp/fieldbrief-pgdata-$(printf '%s' "$dir" | cksum | cut -d' ' -f1)
		say "postgres cannot reach $dir; keeping the cluster in $alt instead"
		mkdir -p "$alt"
		chown postgres: "$alt"
		rmdir "$dir" 2>/dev/null || true
		[[ -e $dir ]] || ln -s "$alt" "$dir"
		dir=$alt
	fi
fi
dir=$(cd "$dir" && pwd -P)
data=$dir/data
sock=$dir/run

# One caller at a time sets the cluster up; the others wait and reuse it.
exec 9>>"$dir/lock"
if command -v flock >/dev/null 2>&1; then
	flock -w 120 9 || die "another pg.sh has held $dir/lock for two minutes"
fi

if [[ ! -s $data/PG_VERSION ]]; then
	say "creating a throwaway cluster in $data (PostgreSQL $("$bin/postgres" --version | awk '{print $3}'))"
	rm -rf "$data"
	run_owner mkdir -p "$data" "$sock"
	# C.UTF-8, as Debian's own cluster has: lower() then folds every
	# letter, not ASCII alone (the jobs search, docs/field-data.md,
	# "Finding work"); --no-locale only where glibc lacks it.
	run_owner "$bin/initdb" -D "$data" -U postgres --auth=trust --encoding=UTF8 --locale=C.UTF-8 --no-instructions >"$dir/initdb.log" 2>&1 ||
		{ rm -rf "$data" && run_owner mkdir -p "$data" &&
			run_owner "$bin/initdb" -D "$data" -U postgres --auth=trust --encoding=UTF8 --no-locale --no-instructions >"$dir/initdb.log" 2>&1; } ||
		{ cat "$dir/initdb.log" >&2; die "initdb failed"; }
	# Tuned for throwaway test databases: durability is not needed, speed is.
	cat >>"$data/postgresql.conf" <<EOF

# fieldbrief throwaway cluster (scripts/pg.sh)
listen_addresses = '127.0.0.1'
port = $local_port
unix_socket_directories = '$sock'
max_connections = 200
fsync = off
synchronous_commit = off
full_page_writes = off
EOF
fi

if run_owner "$bin/pg_ctl" -D "$data" status >/dev/null 2>&1; then
	port=$(awk 'NR == 4' "$data/postmaster.pid")
else
	say "starting the throwaway cluster on 127.0.0.1:$local_port (log: $dir/postgres.log)"
	run_owner mkdir -p "$sock"
	run_owner touch "$dir/postgres.log" 2>/dev/null || true
	# 9>&-: the server must not inherit (and hold forever) the setup lock.
	run_owner "$bin/pg_ctl" -D "$data" -l "$dir/postgres.log" -o "-p $local_port" -w -t 60 start >/dev/null 9>&- ||
		{ tail -n 20 "$dir/postgres.log" >&2 || true; die "the cluster did not start (is port $local_port taken? set PG_LOCAL_PORT)"; }
	port=$local_port
fi

ensure_db "$port"
url "$port"
