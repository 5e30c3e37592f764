#!/usr/bin/env bash
# Run the test suite with the services make test starts: every package with
# go test's flags "$@", the root package split into SHARDS processes that
# run side by side (internal/testenv: Shard). Run by make test and make
# test-all inside scripts/with-services.sh.
#
#   SHARDS=3 TESTJSON=.local/test-events.json scripts/run-suite.sh -count=1 -timeout 10m
#
# The test binaries are built once; then the first process runs every
# package with the root package's first share, the others the root
# package's other shares. Each writes its go test -json events; TESTJSON
# gets them all at the end, for the list of slowest tests and `make
# slow-tests`. The exit status is the worst of the processes'.
set -uo pipefail

SHARDS=${SHARDS:-3}
TESTJSON=${TESTJSON:-.local/test-events.json}
GOTESTSUM=${GOTESTSUM:?the gotestsum binary}
mkdir -p "$(dirname "$TESTJSON")"

# Build every test binary once first (run by /bin/true, which runs no
# test): the processes below would otherwise each compile the root
# package's tests at the same time.
go test -exec /bin/true "$@" ./... >/dev/null || exit

pids=()
for ((i = 1; i <= SHARDS; i++)); do
	pkgs=(.)
	[[ $i == 1 ]] && pkgs=(./...)
	REDIMO_TEST_SHARD=$i/$SHARDS "$GOTESTSUM" --format pkgname --jsonfile "$TESTJSON.$i" -- "$@" "${pkgs[@]}" &
	pids+=($!)
done
status=0
for pid in "${pids[@]}"; do
	wait "$pid" || status=$?
done
for ((i = 1; i <= SHARDS; i++)); do
	cat "$TESTJSON.$i"
	rm -f "$TESTJSON.$i"
done >"$TESTJSON"
exit $status
