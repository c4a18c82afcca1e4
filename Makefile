# fieldbrief — `make run` starts the app with demo data, `make test` runs
# every test; both work on a fresh machine (see README.md).

SHELL := bash
.SHELLFLAGS := -euo pipefail -c
.ONESHELL:
.DEFAULT_GOAL := help
export PATH := $(PATH):/usr/local/go/bin

GO           ?= go
# staticcheck at the version go.mod's tool directive pins: nothing to install.
STATICCHECK  ?= $(GO) tool staticcheck
PORT         ?= 8080
IMAGE        ?= fieldbrief:dev
# go test -timeout: a guard against a hung test, not a bound on a slow machine
# (docs/testing.md, "How make test schedules them").
TEST_TIMEOUT ?= 30m
# make test: packages tested at once, parallel tests in each; the slowest
# packages, started first (measured: docs/benchmarks.md, "The test suite").
TEST_P        ?= 3
TEST_PARALLEL ?= 4
TEST_NICE     ?= 10
# make test: what runs each test binary (-exec); a wrapper such as
# /usr/bin/time measures each package's CPU (docs/testing.md, "How make
# test schedules them"). The browser tests run unniced.
TEST_EXEC     ?= nice -n $(TEST_NICE)
# make test: GOGC of the test binaries and what they start. The machine has
# memory to spare and not CPU: internal/web's tests under the race detector
# took 7 % less CPU (peak RSS 0.66 GB to 1.37 GB; docs/testing.md).
TEST_GOGC     ?= 400
# make test: test binaries linked without DWARF (-w): a stack trace and the
# race detector's reports need only the symbol table, and after a change to
# a package most tests import, linking the 46 test binaries took 71 s of
# CPU instead of 120 (docs/benchmarks.md, "The test suite"). Kept in
# .test-bin/, a binary links again only when its package changed.
TEST_LDFLAGS  ?= -w
# make test: flags for every go command it runs (docs/testing.md, "How make
# test schedules them").
TEST_GOFLAGS  ?= -trimpath
E2E_EXEC      ?=
SLOW_PKGS     := internal/web internal/chaos internal/upgrade internal/tick internal/worker internal/schedule
# make test: the packages with concurrency of their own, tested with the race
# detector (docs/testing.md, "The race detector"); internal/worker since its
# update tests run on a fake clock, not on the hour they run at.
RACE_PKGS     := internal/web internal/tick internal/database internal/worker internal/api internal/httpkit
BENCH        ?= .
BENCHTIME    ?= 1x
BENCH_PKGS   ?= ./internal/tick/... ./internal/worker/... ./internal/schedule/... ./internal/web/... ./internal/api/... ./internal/field/... ./internal/fieldimport/...
FUZZTIME     ?= 60s
# bench-tick: the tick at 10k/100k/1M orgs and the cold start (BENCH_1M=0 skips 1M)
TICK_BENCHTIME ?= 20x
BENCH_1M       ?= 1
CHAOS_TIMEOUT ?= 70m

.PHONY: help run hygiene lint-openapi test screenshots test-citus bench bench-burst bench-tick bench-tick-citus bench-history bench-web fuzz chaos generate build lint docker clean db db-stop

help: ## Show this help
	@echo "Usage: make TARGET"
	echo
	grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk 'BEGIN {FS = ":.*## "} {printf "  %-13s %s\n", $$1, $$2}'

run: build ## Run the app with demo data on http://localhost:8080 (finds, starts or installs PostgreSQL)
	@scripts/need-postgres.sh
	url=$$(scripts/pg.sh fieldbrief) # not inside export: its failure must stop make
	export DATABASE_URL=$$url
	# Local development: webhooks may go to a receiver on this machine.
	export WEBHOOK_ALLOW_PRIVATE_NETWORKS=true
	echo "==> database: $$DATABASE_URL"
	bin/web migrate
	bin/web seed-demo
	bin/worker &
	worker=$$!
	# Ctrl-C (or any exit) stops the worker too.
	trap 'kill -TERM $$worker 2>/dev/null || true; wait $$worker 2>/dev/null || true' EXIT
	trap 'exit 130' INT TERM
	printf '%s\n' '' \
	  '==> fieldbrief on http://localhost:$(PORT)   (the worker runs in the background)' \
	  '    Sign in with password demo-password-1 as:' \
	  '      staff@fieldbrief.test        platform staff: flags, all orgs, audit log' \
	  '      admin@northwind.test         org admin (also admin@bergmann.test, admin@kiwi-pipes.test)' \
	  '      member@northwind.test        org member: reads briefings' \
	  '      consultant@fieldbrief.test   in two orgs: shows the org switcher' \
	  '    Ctrl-C stops both.' ''
	bin/web serve -addr :$(PORT)

hygiene: ## gofmt -l and go mod tidy -diff are empty (make test and make lint run it first)
	@echo "==> gofmt -l, go mod tidy -diff"
	unformatted="$$(gofmt -l $$(git ls-files --cached --others --exclude-standard '*.go'))"
	if [[ -n $$unformatted ]]; then echo "gofmt needed (gofmt -w these files):"; echo "$$unformatted"; exit 1; fi
	if ! untidy="$$($(GO) mod tidy -diff 2>&1)"; then echo "go.mod/go.sum not tidy (run go mod tidy):"; echo "$$untidy"; exit 1; fi

# make lint-openapi: the linters' pinned versions and rule sets (docs/api.md, "OpenAPI").
OPENAPI_LINT := tools/openapi-lint
OPENAPI_DOC  := internal/api/openapi.json

lint-openapi: ## Lint the API's OpenAPI document: redocly (recommended rules) and spectral (spectral:oas), pinned in tools/openapi-lint; 0 errors (finds or installs Node.js)
	@scripts/need-node.sh
	cd $(OPENAPI_LINT)
	# npm ci only when node_modules is not what package-lock.json pins: after
	# the first time nothing is downloaded, and npm's cache serves a reinstall.
	if ! cmp -s package-lock.json node_modules/.fieldbrief-lock 2>/dev/null; then
	  echo "==> npm ci in $(OPENAPI_LINT) (@redocly/cli, @stoplight/spectral-cli at package-lock.json's versions)"
	  npm ci --prefer-offline --ignore-scripts --no-audit --no-fund --loglevel=error
	  cp package-lock.json node_modules/.fieldbrief-lock
	fi
	export REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true
	rc=0
	echo "==> redocly lint (recommended) $(OPENAPI_DOC)"
	node_modules/.bin/redocly lint --config redocly.yaml --format stylish ../../$(OPENAPI_DOC) || rc=$$?
	echo "==> spectral lint (spectral:oas) $(OPENAPI_DOC)"
	node_modules/.bin/spectral lint --ruleset .spectral.yaml --fail-severity error ../../$(OPENAPI_DOC) || rc=$$?
	exit $$rc

test: ## hygiene, the OpenAPI lint, go vet, staticcheck and every test, browser tests included (finds, starts or installs PostgreSQL, Chromium and Node.js)
	@scripts/need-postgres.sh
	scripts/need-chromium.sh
	scripts/need-pgbouncer.sh
	scripts/need-node.sh
	# The suite's own throwaway cluster, in RAM (docs/testing.md, "The suite's PostgreSQL").
	url=$$(scripts/test-pg.sh) # not inside export: its failure must stop make
	export DATABASE_URL=$$url
	echo "==> PostgreSQL for tests: $$DATABASE_URL"
	# -trimpath: without it the build cache keys this module's packages by
	# their directory, so another clone of the same commit (CI's) compiled
	# every one again, while the tests ran (docs/testing.md, "How make test
	# schedules them").
	export GOFLAGS="$${GOFLAGS:-} $(TEST_GOFLAGS)"
	race=$$(printf 'fieldbrief/%s\n' $(RACE_PKGS))
	pkgs=$$( (printf 'fieldbrief/%s\n' $(SLOW_PKGS); $(GO) list ./...) | awk '!seen[$$0]++' | grep -vx 'fieldbrief/e2e' | grep -vxF "$$race")
	# Every test binary is built before any test runs, so no test's waits
	# compete with the compiler: on a machine whose cache is cold,
	# internal/web's tests ran beside 30 minutes of compiling and met their
	# guards. scripts/testrun keeps the binaries in .test-bin/ between runs,
	# where go test -c links one again only when its package changed (go
	# test links every binary each time it runs them); it then runs them as
	# go test runs a package list (docs/testing.md, "How make test schedules
	# them"). go vet ./..., among the checks below, runs the analyzers go
	# test's own vet step would, so the build skips that step.
	echo "==> building the test binaries into .test-bin/"
	$(GO) build -o .test-bin/testrun ./scripts/testrun
	# cmd/web and cmd/worker, for the tests that run the real binaries
	# (cmd/worker, chaos, the tick's, the upgrade test's HEAD): go build -o
	# links again only when a binary would change.
	# -buildvcs=false: a commit's stamp would link them again after every
	# commit, a docs-only one too.
	$(GO) build -buildvcs=false -o .test-bin/bin/ ./cmd/web ./cmd/worker
	bin="$(CURDIR)/.test-bin/bin"
	.test-bin/testrun build -ldflags '$(TEST_LDFLAGS)' ./e2e/ $$pkgs
	.test-bin/testrun build -race -ldflags '$(TEST_LDFLAGS)' $$race
	# The checks that read the code (hygiene, the OpenAPI lint, go vet,
	# staticcheck) run beside the tests, their output kept for the end: they
	# spend most of their 20 s waiting, not computing (docs/testing.md,
	# "How make test schedules them"); any failure still fails make test.
	checks=$$(mktemp)
	trap 'rm -f "$$checks"' EXIT
	( $(MAKE) --no-print-directory hygiene lint-openapi && echo "==> go vet ./..." && $(GO) vet ./... &&
	  echo "==> staticcheck ./..." && $(STATICCHECK) ./... ) >"$$checks" 2>&1 &
	checking=$$!
	# The browser tests, the longest and the ones that wait on a browser,
	# beside the rest, whose test binaries run niced so the browser's steps
	# are not starved of CPU; the slowest of the rest first (go test starts
	# packages in the order given). docs/testing.md, "How make test schedules them".
	echo "==> the tests of ./e2e/ beside those of $(RACE_PKGS) (race detector) and of every other package, $(TEST_P) at a time, -parallel $(TEST_PARALLEL) (both niced)"
	GOGC=$(TEST_GOGC) FIELDBRIEF_TEST_BIN="$$bin" .test-bin/testrun run -parallel $(TEST_PARALLEL) -timeout $(TEST_TIMEOUT) -exec '$(E2E_EXEC)' ./e2e/ &
	e2e=$$!
	GOGC=$(TEST_GOGC) FIELDBRIEF_TEST_BIN="$$bin" .test-bin/testrun run -race -p $(TEST_P) -parallel $(TEST_PARALLEL) -timeout $(TEST_TIMEOUT) -exec '$(TEST_EXEC)' $$race &
	racing=$$!
	rc=0
	GOGC=$(TEST_GOGC) FIELDBRIEF_TEST_BIN="$$bin" .test-bin/testrun run -p $(TEST_P) -parallel $(TEST_PARALLEL) -timeout $(TEST_TIMEOUT) -exec '$(TEST_EXEC)' $$pkgs || rc=$$?
	wait $$racing || rc=$$?
	wait $$e2e || rc=$$?
	echo "==> the checks (hygiene, lint-openapi, go vet, staticcheck)"
	if ! wait $$checking; then rc=1; cat "$$checks"; echo "==> the checks FAILED (above)"; else cat "$$checks"; fi
	exit $$rc

CITUS_TIMEOUT ?= 40m
test-citus: ## The product on a real Citus cluster (a coordinator and two workers; needs ../shared/citus/install.sh run as root, as .ci/run does)
	@scripts/need-postgres.sh
	url=$$(scripts/pg.sh postgres) # not inside export: its failure must stop make
	export DATABASE_URL=$$url
	# Tests behind the citus build tag, one cluster at a time (each starts
	# three PostgreSQL servers); docs/scaling.md, "Citus in tests".
	$(GO) vet -tags citus ./...
	$(STATICCHECK) -tags citus ./...
	$(GO) test -count=1 -tags citus -p 1 -parallel 1 -timeout=$(CITUS_TIMEOUT) -run 'Citus' ./...

bench: ## Benchmarks once each (BENCH=regexp BENCHTIME=1x BENCH_PKGS=...)
	@scripts/need-postgres.sh
	url=$$(scripts/pg.sh postgres) # not inside export: its failure must stop make
	export DATABASE_URL=$$url
	mkdir -p bin
	$(GO) test -run='^$$' -bench='$(BENCH)' -benchtime=$(BENCHTIME) -benchmem $(BENCH_PKGS) | tee bin/bench.txt
	# The tick's table (docs/benchmarks.md, "The tick"); bench-tick measures it with more iterations.
	awk -f scripts/tick-table.awk bin/bench.txt

BENCH_BURST_ORGS  ?= 10000
BENCH_MEMORY_ORGS ?= 1000000
bench-burst: ## Burst (10k orgs due at once, 1 and 3 worker processes) and worker memory at 1M orgs (BENCH_MEMORY_ORGS=0 skips it)
	@scripts/need-postgres.sh
	url=$$(scripts/pg.sh postgres) # not inside export: its failure must stop make
	export DATABASE_URL=$$url
	# Real cmd/worker processes, GOMAXPROCS=2 each; docs/benchmarks.md, "Burst" and "Worker memory at 1M orgs".
	# BENCH_BURST_SMTP=1 adds runs that mail every org's dispatcher.
	BENCH_BURST_ORGS=$(BENCH_BURST_ORGS) BENCH_MEMORY_ORGS=$(BENCH_MEMORY_ORGS) \
	  $(GO) test -run='^$$' -bench='BenchmarkBurst|BenchmarkWorkerMemory' -benchtime=1x -timeout=60m ./cmd/worker/

bench-tick: ## Tick benchmarks: 10k/100k/1M orgs, steady/worst/full vs the plain candidate query (docs/decisions/0001-local-time-scheduling.md) and AT TIME ZONE, worker -once cold start (BENCH_1M=0 skips 1M)
	@scripts/need-postgres.sh
	url=$$(scripts/pg.sh postgres) # not inside export: its failure must stop make
	export DATABASE_URL=$$url
	mkdir -p bin
	BENCH_1M=$(BENCH_1M) $(GO) test -run='^$$' -bench='BenchmarkTick' -benchtime=$(TICK_BENCHTIME) -timeout=60m ./internal/tick/ | tee bin/bench-tick.txt
	awk -f scripts/tick-table.awk bin/bench-tick.txt
	$(GO) test -run='^$$' -bench='BenchmarkWorkerOnceColdStart' -benchtime=3x -timeout=30m ./internal/tick/

BENCH_CITUS_ORGS ?= 100000
bench-tick-citus: ## The tick on one node and on a Citus cluster, same run and data (BENCH_CITUS_ORGS, default 100k; needs Citus as make test-citus does)
	@scripts/need-postgres.sh
	url=$$(scripts/pg.sh postgres) # not inside export: its failure must stop make
	export DATABASE_URL=$$url
	# docs/scaling.md, "The tick on Citus": steady, full and worst, node vs citus.
	BENCH_CITUS_ORGS=$(BENCH_CITUS_ORGS) $(GO) test -tags citus -run='^$$' -bench='BenchmarkCitusTick' -benchtime=1x -timeout=60m -v ./internal/tick/

bench-history: ## History retention: a month of HISTORY_BENCH_ORGS (default 100k) orgs' history dropped with the tick running (docs/benchmarks.md, "History retention")
	@scripts/need-postgres.sh
	url=$$(scripts/pg.sh postgres) # not inside export: its failure must stop make
	export DATABASE_URL=$$url
	mkdir -p bin
	$(GO) test -run='^$$' -bench='BenchmarkDropMonth' -benchtime=1x -timeout=120m -v ./internal/history/ | tee bin/bench-history.txt

bench-web: ## Admin pages under constant-rate load: p50/p99, 503s, peak RSS of cmd/web (WEBLOAD_RATES=200,1000 WEBLOAD_DURATION=10s WEBLOAD_PAGES=...)
	@scripts/need-postgres.sh
	url=$$(scripts/pg.sh postgres) # not inside export: its failure must stop make
	export DATABASE_URL=$$url
	$(GO) test -run='^$$' -bench=BenchmarkWebLoad -benchtime=1x -timeout=30m ./internal/webload/

screenshots: ## The browser tests, saving full-page screenshots of every page they visit to e2e/testdata/screenshots/ (make test takes none)
	@scripts/need-postgres.sh
	scripts/need-chromium.sh
	url=$$(scripts/test-pg.sh) # not inside export: its failure must stop make
	export DATABASE_URL=$$url
	E2E_SCREENSHOTS=1 $(GO) test -count=1 -timeout $(TEST_TIMEOUT) ./e2e/
	echo "==> screenshots in e2e/testdata/screenshots/"

fuzz: ## Fuzz the fieldforce config parser (FUZZTIME=60s)
	$(GO) test -run='^$$' -fuzz=FuzzParseConfig -fuzztime=$(FUZZTIME) ./internal/schedule

chaos: ## Fault injection, full counts: kill -9, pg_terminate_backend, PostgreSQL restart, DST replicas (long; docs/guarantees.md)
	@scripts/need-postgres.sh
	url=$$(scripts/pg.sh postgres) # not inside export: its failure must stop make
	export DATABASE_URL=$$url
	# CHAOS=full: 100 kill -9 and 100 pg_terminate_backend rounds over 1,000
	# due orgs each, 10 PostgreSQL restarts, 5 replicas over 2 × 8 days of
	# minutes. CHAOS_KILL_ROUNDS, CHAOS_TERMINATE_ROUNDS, CHAOS_RESTART_ROUNDS,
	# CHAOS_ORGS, CHAOS_LANES, CHAOS_DST_WINDOWS and CHAOS_SEED override them.
	# The scenarios run one after the other, each on a cluster of its own
	# (CHAOS_SIDE_BY_SIDE=1: all four at once, -parallel 4); a run longer
	# than CHAOS_TIMEOUT (70m: the budget is an hour) fails.
	mkdir -p bin
	CHAOS=full $(GO) test -count=1 -v -parallel 4 -timeout=$(CHAOS_TIMEOUT) ./internal/chaos/ 2>&1 | tee bin/chaos.log | grep -E '^(FIGURES|--- |ok|FAIL|PASS)|FINDING'

generate: ## Regenerate templ components, the zone list, the embedded zone rules, the picker's city data and the CLDR data (needs npm)
	$(GO) tool templ generate
	$(GO) generate ./internal/schedule/...
	# internal/places/places.tsv from npm city-timezones and @vvo/tzdb (docs/timezone-picker.md)
	$(GO) generate ./internal/places/...
	# internal/locale/data.go from npm cldr-core, cldr-dates-full, cldr-numbers-full, cldr-bcp47 (docs/i18n.md)
	$(GO) generate ./internal/locale/...

build: ## Build bin/web and bin/worker
	$(GO) build -o bin/ ./cmd/web ./cmd/worker

lint: hygiene lint-openapi ## hygiene, the OpenAPI lint, go vet and staticcheck
	@$(GO) vet ./...
	$(STATICCHECK) ./...

docker: ## Build the container image (IMAGE=fieldbrief:dev; needs a Docker engine)
	docker build -t $(IMAGE) .

db: ## Print a DATABASE_URL for this machine (starts the local cluster if needed)
	@scripts/need-postgres.sh
	scripts/pg.sh fieldbrief

db-stop: ## Stop the local PostgreSQL cluster scripts/pg.sh started, if any
	@scripts/stop-pg.sh

clean: ## Remove build output (the local database stays: scripts/stop-pg.sh --purge)
	rm -rf bin/ .test-bin/
