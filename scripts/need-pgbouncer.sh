#!/usr/bin/env bash
# Makes sure the topology tests (internal/pgtopo: the web through PgBouncer,
# docs/scaling.md step 2) have Debian's pgbouncer binary; when it is
# missing and we are root on a Debian-like system, installs the `pgbouncer`
# package. Says what it does. The tests fail, not skip, without it.
#
# Usage: scripts/need-pgbouncer.sh [--missing]
#   --missing  only print the Debian package to install (nothing when none
#              is needed) and exit 0; .ci/run collects these to install
#              everything with one apt-get update.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
say() { echo "need-pgbouncer.sh: $*" >&2; }

find_bin() {
	command -v pgbouncer 2>/dev/null && return 0
	for p in /usr/sbin/pgbouncer /usr/bin/pgbouncer; do
		[[ -x $p ]] && { echo "$p"; return 0; }
	done
	return 1
}

if [[ ${1:-} == --missing ]]; then
	find_bin >/dev/null || echo pgbouncer
	exit 0
fi

if bin=$(find_bin); then
	say "using $bin ($("$bin" --version 2>/dev/null | sed -n 1p || echo 'version unknown'))"
	exit 0
fi
say "no pgbouncer: trying to install Debian's pgbouncer package"
# The package's own service is not wanted: the tests start their own.
if ! "$root/scripts/apt-install.sh" pgbouncer; then
	say "install it (sudo apt-get install -y pgbouncer); the PgBouncer topology tests fail without it"
	exit 1
fi
bin=$(find_bin) || { say "installed pgbouncer, but there is still no pgbouncer binary"; exit 1; }
say "installed $("$bin" --version 2>/dev/null | sed -n 1p)"
