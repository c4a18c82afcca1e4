#!/usr/bin/env bash
# Makes sure the OpenAPI document's linters (make lint-openapi:
# tools/openapi-lint, docs/api.md "OpenAPI") have Node.js 18.18 or later and
# npm; when either is missing and we are root on a Debian-like system,
# installs Debian's `nodejs` and `npm` packages (Debian 12's Node 18 is
# enough: the pinned linters need 18.18). Says what it does.
#
# Usage: scripts/need-node.sh [--missing]
#   --missing  only print the Debian packages to install (nothing when none
#              is needed) and exit 0; .ci/run collects these to install
#              everything with one apt-get update.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
say() { echo "need-node.sh: $*" >&2; }

# The oldest Node.js both pinned linters run on (their package.json's
# engines: @stoplight/spectral-cli ^18.18, @redocly/cli >=18.17).
min_major=18 min_minor=18

node_ok() {
	local v
	v=$(node --version 2>/dev/null) || return 1
	v=${v#v}
	local major=${v%%.*} rest=${v#*.}
	local minor=${rest%%.*}
	((major > min_major || (major == min_major && minor >= min_minor)))
}
npm_ok() { command -v npm >/dev/null 2>&1; }

missing() {
	node_ok || echo nodejs
	npm_ok || echo npm
}

if [[ ${1:-} == --missing ]]; then
	missing
	exit 0
fi

if node_ok && npm_ok; then
	say "using node $(node --version) and npm $(npm --version 2>/dev/null || echo '(version unknown)')"
	exit 0
fi
if command -v node >/dev/null 2>&1 && ! node_ok; then
	say "node $(node --version) is older than $min_major.$min_minor"
fi
pkgs=$(missing | tr '\n' ' ')
say "trying to install Debian's ${pkgs% }"
# shellcheck disable=SC2086 # one word per package
if ! "$root/scripts/apt-install.sh" $pkgs; then
	say "install Node.js $min_major.$min_minor or later with npm (sudo apt-get install -y nodejs npm); make lint-openapi needs them"
	exit 1
fi
node_ok && npm_ok || { say "installed $pkgs but node $min_major.$min_minor+ and npm are still not there"; exit 1; }
say "installed node $(node --version), npm $(npm --version)"
