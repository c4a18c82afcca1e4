#!/usr/bin/env bash
# Makes sure the browser tests have Chromium: checks $CHROMIUM_PATH (default
# /usr/bin/chromium-headless-shell, Chromium's headless shell: the browser
# engine without the desktop browser, half the CPU of `chromium --headless`
# in the suite, docs/benchmarks.md) and, when it is missing and we are root
# on a Debian-like system, installs Debian's `chromium-headless-shell`
# package. Says what it does.
#
# Usage: scripts/need-chromium.sh [--missing]
#   --missing  only print the Debian package to install (nothing when none
#              is needed) and exit 0; .ci/run collects these to install
#              everything with one apt-get update.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
path=${CHROMIUM_PATH:-/usr/bin/chromium-headless-shell}
pkg=chromium-headless-shell
say() { echo "need-chromium.sh: $*" >&2; }

if [[ ${1:-} == --missing ]]; then
	[[ ${FIELDBRIEF_SKIP_BROWSER:-} == 1 || -x $path ]] || echo $pkg
	exit 0
fi

if [[ ${FIELDBRIEF_SKIP_BROWSER:-} == 1 ]]; then
	say "FIELDBRIEF_SKIP_BROWSER=1: browser tests will be skipped, Chromium not needed"
	exit 0
fi

if [[ -x $path ]]; then
	say "using $path ($("$path" --version 2>/dev/null || echo 'version unknown'))"
	exit 0
fi
say "no Chromium at $path: trying to install Debian's $pkg package"
if ! "$root/scripts/apt-install.sh" $pkg; then
	say "install it (sudo apt-get install -y --no-install-recommends $pkg), set CHROMIUM_PATH,"
	say "or skip the browser tests with FIELDBRIEF_SKIP_BROWSER=1"
	exit 1
fi
[[ -x $path ]] || { say "installed $pkg, but $path is still missing"; exit 1; }
say "installed $("$path" --version 2>/dev/null || echo $pkg)"
