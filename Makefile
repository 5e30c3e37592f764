# Test harness for redimo. Targets that need DynamoDB Local / redis-server run
# through scripts/with-services.sh, which installs them on first use, starts
# private instances on free ports and always stops them again.
#
#   make demo                               a tour: each command, its reply and its cost (RCU/WCU),
#                                           then redimo-server driven by redis-cli
#   make test   TESTFLAGS='-run TestSAdd'   vet + race tests (DynamoDB Local + redis)
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
SERVICES    := scripts/with-services.sh

.PHONY: help test bench demo server-demo fuzz lint vet ddb-local clean

# The first target is what plain `make` runs: the list above.
help:
	@sed -n '1,/^$$/p' Makefile | sed 's/^# \{0,1\}//'

vet:
	$(GO) vet ./...

test: vet
	REDIMO_TEST_REQUIRE=1 $(SERVICES) --redis -- \
		$(GO) test -race -count=1 -timeout 30m $(TESTFLAGS) ./...

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
