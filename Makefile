# Test harness for redimo. Targets that need DynamoDB Local / redis-server run
# through scripts/with-services.sh, which installs them on first use, starts
# private instances on free ports and always stops them again.
#
#   make demo                               a tour: each command, its reply and its cost (RCU/WCU),
#                                           then redimo-server driven by redis-cli
#   make test   TESTFLAGS='-run TestSAdd'   the everyday suite: every test, small budgets, a new seed
#                                           each run (DynamoDB Local + redis; ~4 min; vet: make lint)
#   make test-all                           the full suite: full budgets, fixed seeds, -race, go vet
#                                           (~12 min; CI)
#   make bench  BENCHFLAGS='-bench SAdd'    benchmarks (DynamoDB Local + redis)
#   make server-demo                        redimo-server on DynamoDB Local, driven by redis-cli
#   make fuzz   FUZZTIME=1m                 every Fuzz* target of the root package
#   make lint                               go vet + staticcheck
#   make ddb-local                          DynamoDB Local on :8000 until Ctrl-C (in memory; -sharedDb:
#                                           any credentials and region see the same tables)
#   make help                               this list (also plain `make`)

SHELL := bash
.SHELLFLAGS := -euo pipefail -c

GO          ?= go
TESTFLAGS   ?=
BENCHFLAGS  ?= -bench . -benchtime 1x
FUZZTIME    ?= 20s
STATICCHECK ?= honnef.co/go/tools/cmd/staticcheck@latest
GOTESTSUM   ?= .local/bin/gotestsum
GOTESTSUM_PKG := gotest.tools/gotestsum@v1.13.0
# The root package runs as this many processes side by side in the suites,
# on this many DynamoDB Locals (1 or 2: scripts/run-suite.sh).
SHARDS      ?= 3
DDB_INSTANCES ?= 2
SERVICES    := scripts/with-services.sh
# Where the suites write their events (go test -json), read for the list
# of slowest tests printed at the end.
TESTJSON    ?= .local/test-events.json

.PHONY: help test test-all slow-tests bench demo server-demo fuzz lint vet ddb-local clean

# The first target is what plain `make` runs: the list above.
help:
	@sed -n '1,/^$$/p' Makefile | sed 's/^# \{0,1\}//'

vet:
	$(GO) vet ./...

# run-suite runs go test with the environment $(1) and the flags $(2)
# (and, with $(3) = 1, go vet beside it) under the services (scripts/run-suite.sh: the root package as $(SHARDS)
# processes side by side), then prints the ten slowest tests whatever the
# outcome, and exits with the tests' status. The everyday suite draws the
# run's seed (printed first; REDIMO_TEST_SEED=<seed> make test repeats the
# run); the full suite keeps each test's fixed seed unless one is given.
define run-suite
	@mkdir -p $(dir $(TESTJSON)); status=0; \
	if [[ -z "$(1)" ]]; then \
		export REDIMO_TEST_SEED=$${REDIMO_TEST_SEED:-$$(( (RANDOM << 15 | RANDOM) % 1000000 ))}; \
		echo "== seed $$REDIMO_TEST_SEED (REDIMO_TEST_SEED=$$REDIMO_TEST_SEED make test repeats this run)"; \
	fi; \
	$(1) REDIMO_TEST_REQUIRE=1 VET=$(3) SHARDS=$(SHARDS) DDB_INSTANCES=$(DDB_INSTANCES) TESTJSON=$(TESTJSON) GOTESTSUM=$(GOTESTSUM) GOTESTSUM_PKG=$(GOTESTSUM_PKG) $(SERVICES) --redis -- \
		scripts/run-suite.sh -count=1 $(2) $(TESTFLAGS) || status=$$?; \
	echo "== slowest tests:"; \
	$(GOTESTSUM) tool slowest --jsonfile $(TESTJSON) --threshold 1s --num 10 || true; \
	exit $$status
endef

# gotestsum, built once into .local/bin (the suite runs it several times
# side by side; scripts/run-suite.sh builds it beside the test binaries).
$(GOTESTSUM):
	GOBIN=$(abspath $(dir $(GOTESTSUM))) $(GO) install $(GOTESTSUM_PKG)

# The root package's slowest tests of the last run, which the suite's
# processes share out first (internal/testenv: SlowTests).
slow-tests: $(GOTESTSUM)
	{ echo "# The root package's tests of 1 s or more in the last make test, by make slow-tests."; \
	  $(GOTESTSUM) tool slowest --jsonfile $(TESTJSON) --threshold 1s | \
		awk '$$1 == "github.com/redimo-go/redimo" && $$2 !~ /\// { sub(/s$$/, "", $$3); print $$2, $$3 }'; \
	} > testdata/slow-tests.txt

# The everyday suite: every test, with small budgets and the seed of the
# run (internal/testenv: Budget, Seed); the heaviest isolated tests run
# four at a time. No race detector: it would double the time (the full
# suite has it).
test:
	$(call run-suite,,-parallel 4 -timeout 10m,0)

# The full suite: the budgets the tests were written with, fixed seeds,
# and the race detector on every package. CI runs it after make test.
test-all:
	$(call run-suite,REDIMO_TEST_THOROUGH=1,-race -parallel 4 -timeout 30m,1)

bench:
	REDIMO_TEST_REQUIRE=1 $(SERVICES) --redis -- \
		$(GO) test -run '^$$' $(BENCHFLAGS) -count 1 ./...

# The walk-through of the library, then redimo-server driven by redis-cli.
demo:
	$(SERVICES) -- bash -c '$(GO) run ./examples/walkthrough && examples/server-demo.sh'

server-demo:
	$(SERVICES) -- examples/server-demo.sh

# Fuzz targets are found by grepping the root package's *_test.go files.
fuzz:
	@targets=$$(grep -ho '^func Fuzz[A-Za-z0-9_]*' *_test.go 2>/dev/null | sed 's/^func //' | sort -u || true); \
	if [[ -z $$targets ]]; then echo "no Fuzz* targets in ./*_test.go"; exit 0; fi; \
	for t in $$targets; do \
		echo "== fuzzing $$t for $(FUZZTIME)"; \
		$(GO) test -run '^$$' -fuzz "^$$t\$$" -fuzztime $(FUZZTIME) . ; \
	done

lint: vet
	$(GO) run $(STATICCHECK) ./...

ddb-local:
	$(SERVICES) --ddb-port 8000

clean:
	rm -rf .local
