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
# the root package's tests each, and go vet (VET=1) beside them. With
# DDB_INSTANCES=2 (make's default) a second DynamoDB Local serves the
# other packages and the last share, in one process. Each test
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
# Every go test below runs with these flags: test binaries carry no
# DWARF (less linking). With VET=1 (make test-all) go vet runs whole
# beside the tests, so not go test's subset of its checks as well; else
# (make test) go test's subset runs as the binaries are built.
set -- -ldflags=-w "$@"
if [[ ${VET:-1} == 1 ]]; then
	set -- -vet=off "$@"
fi

# gotestsum (GOTESTSUM_PKG), when not built yet, is built meanwhile.
install=
if [[ ! -x $GOTESTSUM ]]; then
	mkdir -p "$(dirname "$GOTESTSUM")"
	GOBIN=$(cd "$(dirname "$GOTESTSUM")" && pwd) go install "${GOTESTSUM_PKG:?the gotestsum module@version}" &
	install=$!
fi
go test -exec /bin/true "$@" ./... >/dev/null || exit
if [[ -n $install ]]; then
	wait "$install" || exit
fi

root=$(go list .)
others=$(go list ./... | grep -vxF "$root")
pids=()
if [[ ${VET:-1} == 1 ]]; then
	go vet ./... &
	pids+=($!)
fi
# With DDB_INSTANCES=2 the other packages and the root package's last
# share run in one process on a second DynamoDB Local: one instance
# serves its requests about one at a time, on one core of the two.
last=$SHARDS
if [[ ${DDB_INSTANCES:-1} == 2 ]]; then
	# Three packages at a time, the longest first: the root share,
	# internal/server, cmd/redimo.
	REDIMO_TEST_SHARD=$SHARDS/$SHARDS scripts/with-services.sh -- \
		"$GOTESTSUM" --format pkgname --jsonfile "$TESTJSON.0" -- "$@" -p 3 \
		. ./internal/server ./cmd/redimo $others &
	last=$((SHARDS - 1))
else
	"$GOTESTSUM" --format pkgname --jsonfile "$TESTJSON.0" -- "$@" $others &
fi
pids+=($!)
for ((i = 1; i <= last; i++)); do
	REDIMO_TEST_SHARD=$i/$SHARDS "$GOTESTSUM" --format pkgname --jsonfile "$TESTJSON.$i" -- "$@" . &
	pids+=($!)
done
status=0
for pid in "${pids[@]}"; do
	wait "$pid" || status=$?
done
for ((i = 0; i <= last; i++)); do
	cat "$TESTJSON.$i"
	rm -f "$TESTJSON.$i"
done >"$TESTJSON"
exit $status
