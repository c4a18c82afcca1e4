#!/usr/bin/env bash
# Regenerates internal/places/places.tsv from the npm packages it is built
# from (docs/timezone-picker.md). Needs npm and the npm registry; the
# packages are unpacked in a temporary directory and never committed. The
# generator applies internal/places/gen/corrections.tsv and checks every city
# against zone1970.tab and zone.tab in /usr/share/zoneinfo (the tzdata that
# internal/schedule's generator reads); it stops on a city it cannot place.
set -euo pipefail
CITIES=city-timezones@1.3.4
TZDB=@vvo/tzdb@6.202.0
root="$(cd "$(dirname "$0")/.." && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "$CITIES" "$TZDB" >/dev/null)
mkdir "$tmp/cities" "$tmp/tzdb"
tar -xzf "$tmp"/city-timezones-*.tgz -C "$tmp/cities" --strip-components=1
tar -xzf "$tmp"/vvo-tzdb-*.tgz -C "$tmp/tzdb" --strip-components=1
cd "$root"
go run ./internal/places/gen \
  -cities "$tmp/cities/data/cityMap.json" \
  -tzdb "$tmp/tzdb/raw-time-zones.json" \
  -sources "npm $CITIES (MIT) and $TZDB (MIT)" \
  -o internal/places/places.tsv
echo "wrote internal/places/places.tsv ($(wc -c < internal/places/places.tsv) bytes)"
