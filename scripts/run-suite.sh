#!/usr/bin/env bash
# Run the test suite with the services make test starts: every package with
# go test's flags "$@", the root package split into SHARDS processes that
# run side by side (internal/testenv: Shard). Run by make test and make
# test-all inside scripts/with-services.sh.
#
#   SHARDS=3 TESTJSON=.local/test-events.json scripts/run-suite.sh -count=1 -timeout 10m
#
# The test binaries are built once; then one process runs every other
# package (two at a time, as go test does), SHARDS processes a share of
# the root package's tests each, and go vet runs beside them. Each test
# process writes its go test -json events; TESTJSON gets them all at the
# end, for the list of slowest tests and `make slow-tests`. The exit
# status is the worst of the processes'.
set -uo pipefail

SHARDS=${SHARDS:-3}
TESTJSON=${TESTJSON:-.local/test-events.json}
GOTESTSUM=${GOTESTSUM:?the gotestsum binary}
mkdir -p "$(dirname "$TESTJSON")"

# Build every test binary once first (run by /bin/true, which runs no
# test): the processes below would otherwise each compile the root
# package's tests at the same time. The build runs go vet's default
# checks; the whole of go vet runs beside the tests.
go test -exec /bin/true "$@" ./... >/dev/null || exit

root=$(go list .)
others=$(go list ./... | grep -vxF "$root")
pids=()
go vet ./... &
pids+=($!)
"$GOTESTSUM" --format pkgname --jsonfile "$TESTJSON.0" -- "$@" $others &
pids+=($!)
for ((i = 1; i <= SHARDS; i++)); do
	REDIMO_TEST_SHARD=$i/$SHARDS "$GOTESTSUM" --format pkgname --jsonfile "$TESTJSON.$i" -- "$@" . &
	pids+=($!)
done
status=0
for pid in "${pids[@]}"; do
	wait "$pid" || status=$?
done
for ((i = 0; i <= SHARDS; i++)); do
	cat "$TESTJSON.$i"
	rm -f "$TESTJSON.$i"
done >"$TESTJSON"
exit $status
