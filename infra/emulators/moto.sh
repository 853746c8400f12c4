#!/usr/bin/env bash
# Starts or stops a moto server (installed by install.sh; used for SQS) in the background.
#
#   moto.sh start    start on a free port (no-op if already running); prints the endpoint
#   moto.sh stop     stop the instance started by `start`
#   moto.sh status   print the endpoint and exit 0 when running, exit 1 otherwise
#
# State lives in .emulators/ at the repo root (override with EMULATORS_STATE_DIR):
# moto.log, moto.pid, moto.endpoint. It listens on 127.0.0.1 only and keeps everything in
# memory; any credentials and region are accepted (each account/region is its own namespace).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
STATE="${EMULATORS_STATE_DIR:-$ROOT/.emulators}"
MOTO_SERVER="$ROOT/.tools/venv/bin/moto_server"
PID_FILE="$STATE/moto.pid"
LOG_FILE="$STATE/moto.log"
ENDPOINT_FILE="$STATE/moto.endpoint"
START_TIMEOUT="${MOTO_START_TIMEOUT:-60}"

die() { printf '[moto] error: %s\n' "$*" >&2; exit 1; }
note() { printf '[moto] %s\n' "$*" >&2; }

# The pid from the pid file when that process is still our moto_server, else nothing.
running_pid() {
  [[ -f "$PID_FILE" ]] || return 0
  local pid
  pid=$(cat "$PID_FILE")
  if [[ "$pid" =~ ^[0-9]+$ ]] && ps -p "$pid" -o args= 2>/dev/null | grep -q moto_server; then
    echo "$pid"
  fi
}

free_port() {
  python3 -c 'import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# Exit 0 once moto answers HTTP at $1 (its /moto-api/ dashboard; any HTTP status will do).
answers() {
  python3 - "$1" <<'EOF'
import sys, urllib.request, urllib.error
try:
    urllib.request.urlopen(sys.argv[1] + "/moto-api/", timeout=2)
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
  [[ -x "$MOTO_SERVER" ]] || die "moto not installed: run infra/emulators/install.sh"
  mkdir -p "$STATE"
  rm -f "$PID_FILE" "$ENDPOINT_FILE"

  local attempt port endpoint deadline
  for attempt in 1 2 3; do
    port=$(free_port)
    endpoint="http://127.0.0.1:$port"
    "$MOTO_SERVER" -H 127.0.0.1 -p "$port" >"$LOG_FILE" 2>&1 &
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
      sleep 0.2
    done
    # The process died: most likely the port was taken between picking and binding; retry.
    rm -f "$PID_FILE"
    note "attempt $attempt on port $port failed:"
    tail -n 5 "$LOG_FILE" >&2 || true
  done
  die "could not start moto (log: $LOG_FILE)"
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
