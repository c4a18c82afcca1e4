#!/usr/bin/env bash
# Regenerates internal/locale/data.go from the Unicode CLDR JSON packages on
# npm (docs/i18n.md, "Formats"). Needs npm and the npm registry; the
# packages are unpacked in a temporary directory and never committed.
set -euo pipefail
V=48.2.0
PACKAGES=(cldr-core@$V cldr-dates-full@$V cldr-numbers-full@$V cldr-bcp47@$V)
root="$(cd "$(dirname "$0")/.." && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "${PACKAGES[@]}" >/dev/null)
for p in core dates-full numbers-full bcp47; do
  mkdir "$tmp/$p"
  tar -xzf "$tmp"/cldr-$p-$V.tgz -C "$tmp/$p" --strip-components=1
done
cd "$root"
go run ./internal/locale/gen \
  -core "$tmp/core" -dates "$tmp/dates-full" -numbers "$tmp/numbers-full" -bcp47 "$tmp/bcp47" \
  -sources "npm ${PACKAGES[*]}" \
  -o internal/locale/data.go
echo "wrote internal/locale/data.go ($(wc -c < internal/locale/data.go) bytes)"
