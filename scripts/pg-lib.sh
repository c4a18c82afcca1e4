# Shared by pg.sh and need-postgres.sh (sourced, not run): where the
# PostgreSQL server binaries are and whether a server answers.

# pg_bin prints the newest installed server's bin directory ($PG_BIN when
# set), or fails when there is none.
pg_bin() {
	local bin=${PG_BIN:-}
	if [[ -z $bin ]]; then
		bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
	fi
	[[ -n $bin && -x $bin/initdb ]] || return 1
	echo "$bin"
}

# psql_cmd runs psql from PATH or from the server's bin directory.
psql_cmd() {
	local bin
	if command -v psql >/dev/null 2>&1; then
		psql "$@"
	elif bin=$(pg_bin); then
		"$bin/psql" "$@"
	else
		return 127
	fi
}

# have_psql reports whether psql_cmd can run.
have_psql() { command -v psql >/dev/null 2>&1 || pg_bin >/dev/null; }

# answers reports whether a server we can sign in to (user postgres, no
# password) listens on 127.0.0.1:$1. Without psql, a TCP connect has to do.
answers() {
	local port=$1
	if have_psql; then
		PGCONNECT_TIMEOUT=3 psql_cmd -X -q -w -h 127.0.0.1 -p "$port" -U postgres -d postgres -tAc 'SELECT 1' >/dev/null 2>&1
	else
		timeout 3 bash -c ">/dev/tcp/127.0.0.1/$port" 2>/dev/null
	fi
}
