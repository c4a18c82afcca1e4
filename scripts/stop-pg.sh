#!/usr/bin/env bash
# Stops the throwaway PostgreSQL cluster scripts/pg.sh started under .pgdata/.
# A server we did not start (DATABASE_URL, port 5432) is left alone.
#
# Usage: scripts/stop-pg.sh [--purge]   (--purge also deletes its data)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dir=${PG_DATA_DIR:-$root/.pgdata}
purge=false
[[ ${1:-} == --purge ]] && purge=true

say() { echo "stop-pg.sh: $*" >&2; }

if [[ ! -d $dir/data ]]; then
	say "no local cluster in $dir"
	exit 0
fi
real=$(cd "$dir" && pwd -P)
bin=${PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)}
as_owner=()
[[ $(id -u) == 0 ]] && as_owner=(runuser -u postgres --)

if [[ -x $bin/pg_ctl ]] && "${as_owner[@]}" "$bin/pg_ctl" -D "$real/data" status >/dev/null 2>&1; then
	say "stopping the cluster in $real/data"
	"${as_owner[@]}" "$bin/pg_ctl" -D "$real/data" -m fast -w -t 60 stop >/dev/null
else
	say "the cluster in $real/data is not running"
fi
if $purge; then
	say "deleting $real"
	rm -rf "$real"
	[[ -L $dir ]] && rm -f "$dir"
fi
exit 0
