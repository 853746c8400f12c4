# shellcheck shell=bash disable=SC2154 # NAME, LABEL, ... are set by the sourcing script
# Shared start/stop/status of one emulator process, sourced by dynamodb-local.sh, moto.sh and
# s3s.sh. The sourcing script sets, before calling `emulator_main "$@"`:
#   NAME            state-file prefix (NAME.pid, NAME.log, NAME.endpoint)
#   LABEL           log prefix and name in messages
#   PROCESS         text that the process's command line contains (to trust the pid file)
#   START_TIMEOUT   seconds to wait for the first answer
#   PROBE_METHOD, PROBE_PATH   the HTTP request that must get any answer once it is up
# and defines `prepare` (checks and set-up before starting, may die), `launch PORT` (starts the
# process in the background; its pid is taken from $!) and optionally `cleanup` (after stop).
# State lives in .emulators/ at the repo root, or EMULATORS_STATE_DIR.

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
STATE="${EMULATORS_STATE_DIR:-$ROOT/.emulators}"

die() { printf '[%s] error: %s\n' "$LABEL" "$*" >&2; exit 1; }
note() { printf '[%s] %s\n' "$LABEL" "$*" >&2; }
cleanup() { :; }

pid_file() { echo "$STATE/$NAME.pid"; }
log_file() { echo "$STATE/$NAME.log"; }
endpoint_file() { echo "$STATE/$NAME.endpoint"; }

# The pid from the pid file when that process is still ours, else nothing.
running_pid() {
  [[ -f "$(pid_file)" ]] || return 0
  local pid
  pid=$(cat "$(pid_file)")
  if [[ "$pid" =~ ^[0-9]+$ ]] && ps -p "$pid" -o args= 2>/dev/null | grep -q -- "$PROCESS"; then
    echo "$pid"
  fi
}

free_port() {
  python3 -c 'import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# Exit 0 once anything answers HTTP at $1 (any status will do: an error is an answer).
answers() {
  python3 - "$1" "$PROBE_METHOD" "$PROBE_PATH" <<'PY'
import sys, urllib.request, urllib.error
url, method, path = sys.argv[1], sys.argv[2], sys.argv[3]
data = b"{}" if method == "POST" else None
try:
    urllib.request.urlopen(urllib.request.Request(url + path, data=data, method=method), timeout=2)
except urllib.error.HTTPError:
    pass
except Exception:
    sys.exit(1)
PY
}

emulator_start() {
  local pid
  pid=$(running_pid)
  if [[ -n "$pid" && -f "$(endpoint_file)" ]]; then
    note "already running (pid $pid)"
    cat "$(endpoint_file)"
    return 0
  fi
  mkdir -p "$STATE"
  rm -f "$(pid_file)" "$(endpoint_file)"
  prepare

  local attempt port endpoint deadline
  for attempt in 1 2 3; do
    port=$(free_port)
    endpoint="http://127.0.0.1:$port"
    launch "$port" >"$(log_file)" 2>&1 &
    pid=$!
    echo "$pid" >"$(pid_file)"
    deadline=$(($(date +%s) + START_TIMEOUT))
    while kill -0 "$pid" 2>/dev/null; do
      if answers "$endpoint"; then
        echo "$endpoint" >"$(endpoint_file)"
        note "started (pid $pid, log $(log_file))"
        echo "$endpoint"
        return 0
      fi
      if (($(date +%s) >= deadline)); then
        kill "$pid" 2>/dev/null || true
        rm -f "$(pid_file)"
        tail -n 20 "$(log_file)" >&2 || true
        die "no answer at $endpoint after ${START_TIMEOUT}s"
      fi
      sleep 0.2
    done
    # The process died: most likely the port was taken between picking and binding; retry.
    rm -f "$(pid_file)"
    note "attempt $attempt on port $port failed:"
    tail -n 5 "$(log_file)" >&2 || true
  done
  die "could not start $LABEL (log: $(log_file))"
}

emulator_stop() {
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
  rm -f "$(pid_file)" "$(endpoint_file)"
  cleanup
}

emulator_status() {
  local pid
  pid=$(running_pid)
  [[ -n "$pid" && -f "$(endpoint_file)" ]] || return 1
  cat "$(endpoint_file)"
}

emulator_main() {
  case "${1:-}" in
    start) emulator_start ;;
    stop) emulator_stop ;;
    status) emulator_status ;;
    *) die "usage: $0 start|stop|status" ;;
  esac
}
