#!/usr/bin/env bash
# redimo-server demo: start the server against DynamoDB Local and talk to it
# with redis-cli (Debian's redis-tools), then with the redimo CLI.
#
#   scripts/with-services.sh -- examples/server-demo.sh     (make server-demo)
#
# Needs REDIMO_ENDPOINT (exported by scripts/with-services.sh). The server
# listens on a free loopback port, uses the table redimo_demo (created if
# missing) and is stopped with SIGTERM at the end, also on failure.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
: "${REDIMO_ENDPOINT:?run me through scripts/with-services.sh (make server-demo)}"
GO=${GO:-go}
TABLE=${REDIMO_DEMO_TABLE:-redimo_demo}

log() { echo "[server-demo] $*" >&2; }

if ! command -v redis-cli >/dev/null; then
  log "installing redis-tools (redis-cli) with apt-get"
  sudo=; [[ $(id -u) == 0 ]] || sudo=sudo
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q redis-tools >&2 ||
    { $sudo apt-get update -q >&2 && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q redis-tools >&2; }
fi

tmp=$(mktemp -d)
pid=
cleanup() {
  local status=$?
  if [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null; then
    log "stopping redimo-server (pid $pid) with SIGTERM"
    kill -TERM "$pid" && wait "$pid" || true
  fi
  rm -rf "$tmp"
  exit "$status"
}
trap cleanup EXIT

log "building cmd/redimo-server and cmd/redimo"
$GO build -o "$tmp/redimo-server" ./cmd/redimo-server
$GO build -o "$tmp/redimo" ./cmd/redimo

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' 2>/dev/null ||
  echo $((20000 + RANDOM % 20000)))
log "starting redimo-server on 127.0.0.1:$port (table $TABLE at $REDIMO_ENDPOINT)"
"$tmp/redimo-server" --addr "127.0.0.1:$port" --table "$TABLE" --create-table 2>"$tmp/server.log" &
pid=$!
for _ in $(seq 100); do
  redis-cli -p "$port" PING >/dev/null 2>&1 && break
  kill -0 "$pid" 2>/dev/null || { cat "$tmp/server.log" >&2; exit 1; }
  sleep 0.1
done

cat <<EOF

== redimo-server: the same commands over the Redis protocol ==
redimo-server speaks Redis's protocol, so any Redis client works with it.
Here redis-cli (Redis's own command-line client) sends commands to it on
port $port; each line "redis-cli> ..." is a command, the lines after it
its reply. The data lands in the DynamoDB table $TABLE.

EOF
cli() {
  echo "redis-cli> $*"
  redis-cli -p "$port" --no-raw "$@"
}
k=demo
cli DEL "$k:today" "$k:yesterday" "$k:both" "$k:board" >/dev/null
cli SADD "$k:today" alice bob carol
cli SADD "$k:yesterday" bob dave
cli SCARD "$k:today"
cli SISMEMBER "$k:today" alice
cli SMISMEMBER "$k:today" alice dave
cli SINTER "$k:today" "$k:yesterday"
cli SUNIONSTORE "$k:both" "$k:today" "$k:yesterday"
cli SMEMBERS "$k:both"
cli SSCAN "$k:both" 0 MATCH "[a-c]*"
if redis-cli -p "$port" COMMAND INFO zadd | grep -q zadd; then
  cli ZADD "$k:board" 120 alice 95.5 bob 300 carol
  cli ZINCRBY "$k:board" 10 bob
  cli ZRANGE "$k:board" 0 -1 WITHSCORES
  cli ZREVRANGE "$k:board" 0 0 WITHSCORES
  cli ZSCORE "$k:board" carol
  cli -3 ZRANGEBYSCORE "$k:board" "(100" +inf WITHSCORES
fi
cli TYPE "$k:today"
cli SADD "$k:today"
cli NOSUCHCOMMAND x
echo
echo "redimo> SMEMBERS $k:yesterday    (the redimo CLI runs the same commands in-process; --cost shows what each cost)"
"$tmp/redimo" --table "$TABLE" --no-raw --cost SMEMBERS "$k:yesterday" 2>&1
cli DEL "$k:today" "$k:yesterday" "$k:both" "$k:board"

cat <<EOF

What each command cost, from the server's INFO commandstats
(calls, then DynamoDB requests, read and write capacity units):
EOF
redis-cli -p "$port" INFO commandstats | tr -d '\r' | grep '^cmdstat_' | grep -v 'cmdstat_\(command\|info\|ping\|client\)' |
  sed -E 's/^cmdstat_([^:]+):calls=([0-9]+),usec=([0-9]+),.*dynamodb_requests=([0-9]+),rcu=([0-9.]+),wcu=([0-9.]+),.*/  \1: \2 call(s), \4 DynamoDB request(s), \5 RCU, \6 WCU/'

cat <<EOF

Next steps:
  - use redimo from Go: go get github.com/redimo-go/redimo, then README.md ("Use with DynamoDB Local")
  - type commands yourself: make ddb-local (DynamoDB Local on port 8000 until Ctrl-C), then in another shell
      go run ./cmd/redimo --endpoint http://127.0.0.1:8000 create-table
      go run ./cmd/redimo --endpoint http://127.0.0.1:8000        (a prompt; type help)
  - run the tests: make test
EOF
