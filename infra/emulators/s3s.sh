#!/usr/bin/env bash
# Starts or stops s3s-fs (installed by install.sh), a local S3 server that verifies SigV4
# signatures (presigned URLs included), in the background.
#
#   s3s.sh start    start on a free port (no-op if already running); prints the endpoint
#   s3s.sh stop     stop the instance started by `start` and remove its data
#   s3s.sh status   print the endpoint and exit 0 when running, exit 1 otherwise
#
# State lives in .emulators/ at the repo root (override with EMULATORS_STATE_DIR): s3s.log,
# s3s.pid, s3s.endpoint, and the object data in s3s-data/ (a bucket is a directory; the tests
# create theirs with CreateBucket). It listens on 127.0.0.1 only and accepts the access key
# `test` with the secret `test` (region-agnostic). s3s-fs has no object tagging (PutObjectTagging
# and DeleteObjectTagging answer NotImplemented); it ignores an x-amz-tagging header on PUT.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
STATE="${EMULATORS_STATE_DIR:-$ROOT/.emulators}"
S3S_FS="$ROOT/.tools/cargo/bin/s3s-fs"
PID_FILE="$STATE/s3s.pid"
LOG_FILE="$STATE/s3s.log"
ENDPOINT_FILE="$STATE/s3s.endpoint"
DATA_DIR="$STATE/s3s-data"
START_TIMEOUT="${S3S_START_TIMEOUT:-30}"

die() { printf '[s3s] error: %s\n' "$*" >&2; exit 1; }
note() { printf '[s3s] %s\n' "$*" >&2; }

# The pid from the pid file when that process is still our s3s-fs, else nothing.
running_pid() {
  [[ -f "$PID_FILE" ]] || return 0
  local pid
  pid=$(cat "$PID_FILE")
  if [[ "$pid" =~ ^[0-9]+$ ]] && ps -p "$pid" -o args= 2>/dev/null | grep -q s3s-fs; then
    echo "$pid"
  fi
}

free_port() {
  python3 -c 'import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# Exit 0 once anything answers HTTP at $1 (an unsigned request gets an S3 error; any status will do).
answers() {
  python3 - "$1" <<'PY'
import sys, urllib.request, urllib.error
try:
    urllib.request.urlopen(sys.argv[1] + "/", timeout=2)
except urllib.error.HTTPError:
    pass
except Exception:
    sys.exit(1)
PY
}

start() {
  local pid
  pid=$(running_pid)
  if [[ -n "$pid" && -f "$ENDPOINT_FILE" ]]; then
    note "already running (pid $pid)"
    cat "$ENDPOINT_FILE"
    return 0
  fi
  [[ -x "$S3S_FS" ]] || die "s3s-fs not installed: run infra/emulators/install.sh"
  mkdir -p "$STATE"
  rm -f "$PID_FILE" "$ENDPOINT_FILE"
  rm -rf "$DATA_DIR"
  mkdir -p "$DATA_DIR"

  local attempt port endpoint deadline
  for attempt in 1 2 3; do
    port=$(free_port)
    endpoint="http://127.0.0.1:$port"
    "$S3S_FS" --host 127.0.0.1 --port "$port" --access-key test --secret-key test "$DATA_DIR" \
      >"$LOG_FILE" 2>&1 &
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
  die "could not start s3s-fs (log: $LOG_FILE)"
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
  rm -rf "$DATA_DIR"
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
