#!/usr/bin/env bash
# Installs Debian packages for the need-*.sh scripts and .ci/run: one
# `apt-get update`, then one `apt-get install` of everything asked for.
# Needs root and apt-get; FIELDBRIEF_NO_INSTALL=1 forbids installing.
#
# Usage: scripts/apt-install.sh PACKAGE...
set -euo pipefail

say() { echo "apt-install.sh: $*" >&2; }

(($#)) || exit 0
if [[ ${FIELDBRIEF_NO_INSTALL:-} == 1 ]]; then
	say "FIELDBRIEF_NO_INSTALL=1: not installing $*"
	exit 1
fi
if [[ $(id -u) != 0 ]] || ! command -v apt-get >/dev/null 2>&1; then
	say "cannot install $* here (needs root and apt-get)"
	exit 1
fi
say "installing $* (apt-get update, then apt-get install)"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2
apt-get install -y -qq --no-install-recommends "$@" </dev/null >&2
