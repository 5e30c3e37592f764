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

# Every go test below runs with -vet=off (make test-all, VET=1, runs the
# whole of go vet beside the tests; make test none: `make lint` has it)
# and -ldflags=-w (test binaries without DWARF: less linking).
set -- -vet=off -ldflags=-w "$@"
root=$(go list .)
others=$(go list ./... | grep -vxF "$root")

# With DDB_INSTANCES=2 the other packages and the root package's last
# share run in one process on a second DynamoDB Local (one instance
# serves its requests about one at a time, on one core of the two). It
# starts now, beside the build, and runs its tests once the build is
# done ($ready.ok; $ready.failed: it stops).
pids=()
last=$SHARDS
ready=$(mktemp -u)
trap 'rm -f "$ready".*' EXIT
if [[ ${DDB_INSTANCES:-1} == 2 ]]; then
	# The other packages take about 45 s of the everyday suite's
	# seconds (testdata/slow-tests.txt) on the second instance: the last
	# share is dealt as much less (internal/testenv: EnvShardBeside).
	# Measured at 7d9f3ff, without it: the second instance's process
	# ended 19 s after the two shares of the first.
	export REDIMO_TEST_SHARD_BESIDE=${SHARD_BESIDE:-45}
	# Three packages at a time, the longest first: the root share,
	# internal/server, cmd/redimo.
	REDIMO_TEST_SHARD=$SHARDS/$SHARDS scripts/with-services.sh -- bash -c \
		'until [[ -e $0.ok || -e $0.failed ]]; do sleep 0.2; done; [[ -e $0.ok ]] && exec "$@"' "$ready" \
		"$GOTESTSUM" --format pkgname --jsonfile "$TESTJSON.0" -- "$@" -p 3 \
		. ./internal/server ./cmd/redimo $others &
	pids+=($!)
	last=$((SHARDS - 1))
fi

# Build every test binary once first (run by /bin/true, which runs no
# test): the processes below would otherwise each compile the root
# package's tests at the same time. gotestsum (GOTESTSUM_PKG), when not
# built yet, is built meanwhile.
install=
if [[ ! -x $GOTESTSUM ]]; then
	mkdir -p "$(dirname "$GOTESTSUM")"
	GOBIN=$(cd "$(dirname "$GOTESTSUM")" && pwd) go install "${GOTESTSUM_PKG:?the gotestsum module@version}" &
	install=$!
fi
if ! go test -exec /bin/true "$@" ./... >/dev/null || { [[ -n $install ]] && ! wait "$install"; }; then
	touch "$ready.failed"
	wait
	exit 1
fi
touch "$ready.ok"

if [[ ${VET:-1} == 1 ]]; then
	go vet ./... &
	pids+=($!)
fi
if [[ ${DDB_INSTANCES:-1} != 2 ]]; then
	"$GOTESTSUM" --format pkgname --jsonfile "$TESTJSON.0" -- "$@" $others &
	pids+=($!)
fi
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
