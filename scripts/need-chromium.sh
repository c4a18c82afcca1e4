#!/usr/bin/env bash
# Makes sure the browser tests have Chromium: checks $CHROMIUM_PATH (default
# /usr/bin/chromium) and, when it is missing and we are root on a Debian-like
# system, installs Debian's `chromium` package. Says what it does.
set -euo pipefail

path=${CHROMIUM_PATH:-/usr/bin/chromium}
say() { echo "need-chromium.sh: $*" >&2; }

if [[ ${FIELDBRIEF_SKIP_BROWSER:-} == 1 ]]; then
	say "FIELDBRIEF_SKIP_BROWSER=1: browser tests will be skipped, Chromium not needed"
	exit 0
fi

if [[ -x $path ]]; then
	say "using $path ($("$path" --version 2>/dev/null || echo 'version unknown'))"
	exit 0
fi
if [[ $(id -u) != 0 ]] || ! command -v apt-get >/dev/null 2>&1; then
	say "no Chromium at $path and cannot install it here (needs root and apt-get)."
	say "install it (sudo apt-get install -y --no-install-recommends chromium), set CHROMIUM_PATH,"
	say "or skip the browser tests with FIELDBRIEF_SKIP_BROWSER=1"
	exit 1
fi
say "no Chromium at $path: installing Debian's chromium package (apt-get update, then install)"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2
apt-get install -y -qq --no-install-recommends chromium >&2
[[ -x $path ]] || { say "installed chromium, but $path is still missing"; exit 1; }
say "installed $("$path" --version 2>/dev/null || echo chromium)"
