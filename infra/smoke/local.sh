#!/usr/bin/env bash
# Runs the post-deploy smoke test, `make smoke URL=…` (the target an operator runs after
# deploying), against the two local targets, so it is known to work before anyone deploys:
#
#   gateway  the local gateway (`blog-gateway serve`, debug) on a fresh data directory, with an
#            actuator token (so the smoke test's --actuator-token is exercised)
#   stack    the stack as template.yaml deploys it (`blog-stack serve`: the functions of
#            `make stack-build` behind the API Gateway front) on the emulators, its parameters at
#            their defaults, as `make stack` runs it; after the smoke test, `make invoke` of
#            events/users/get-me.json through the stack's Lambda Invoke API with cargo-lambda
#            (the answer must be event_user's); it fails when a function made an AWS call the
#            template does not grant, when the stack leaves a process behind, or when this run
#            leaves an emulator it started running
#
#   localstack  the same stack on LocalStack's runtime without Docker, as `make localstack` runs
#            it (infra/localstack/with-localstack.sh: LocalStack's S3, SQS and Secrets Manager,
#            the resources its ready hook creates, the table on DynamoDB Local), with the same
#            checks
#
#   infra/smoke/local.sh [gateway|stack|localstack]    (all three when no argument)
#
# Each target listens on a free port (never 3000: `make dev` may be running) and is stopped
# afterwards; the time each took is printed. The administrator is BLOG_ADMIN_* (the Makefile's
# admin/Admin12345 unless overridden); other BLOG_* variables of the caller are ignored.
# Needs `make tools` and `make stack-build` (`make smoke-local` runs both first). BLOG_BINS, when
# set, is a directory where blog-smoke, blog-gateway and blog-stack are built (the Makefile's);
# unset, each is built here with its own features.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
SELF="$ROOT/infra/smoke/local.sh"
EMULATORS="$ROOT/infra/emulators"
CARGO="${CARGO:-cargo}"
READY_SECONDS="${SMOKE_LOCAL_READY_SECONDS:-120}"
cd "$ROOT"

log() { printf '[smoke-local] %s\n' "$*"; }
die() { printf '[smoke-local] error: %s\n' "$*" >&2; exit 1; }

# Milliseconds of the wall clock, and the time since such a reading as `12.3 s`.
now_ms() {
  local micros=${EPOCHREALTIME/[.,]/}
  echo $((micros / 1000))
}
since() {
  local ms=$(($(now_ms) - $1))
  printf '%d.%d s' $((ms / 1000)) $((ms % 1000 / 100))
}

free_port() {
  python3 -c 'import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# `make smoke` against $1, the variables of the environment given before it.
smoke() {
  make --no-print-directory -C "$ROOT" smoke URL="$1" CARGO="$CARGO"
}

# Stops process $1 with signal $2 and waits for it, at most $3 seconds, then SIGKILL.
# Answers the process's exit status.
stop() {
  local pid=$1 signal=$2 seconds=$3 waited=0
  kill -s "$signal" "$pid" 2>/dev/null || true
  while kill -0 "$pid" 2>/dev/null && ((waited < seconds * 10)); do
    sleep 0.1
    waited=$((waited + 1))
  done
  if kill -0 "$pid" 2>/dev/null; then
    log "pid $pid still running ${seconds} s after SIG$signal: killing it"
    kill -s KILL "$pid" 2>/dev/null || true
  fi
  local status=0
  wait "$pid" 2>/dev/null || status=$?
  return "$status"
}

# What `blog-stack serve` runs on (its lines' prefix), and its arguments beyond `serve`.
TARGET=stack
SERVE_ARGS=()
# The emulators running before a LocalStack run.
WORK_BEFORE="$(mktemp)"

# Processes started for this run, stopped on any exit.
SERVER_PID=""
WORK=""
on_exit() {
  if [[ -n "$SERVER_PID" ]] && kill -0 "$SERVER_PID" 2>/dev/null; then
    stop "$SERVER_PID" INT 30 || true
  fi
  [[ -z "$WORK" ]] || rm -rf "$WORK"
  rm -f "$WORK_BEFORE"
}
trap on_exit EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# The local gateway on a fresh data directory and a free port, the smoke test, the stop.
run_gateway() {
  local port url token started status=0
  started=$(now_ms)
  WORK="$(mktemp -d)"
  port="$(free_port)"
  url="http://127.0.0.1:$port"
  token="smoke-local-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')"
  log "gateway: blog-gateway serve on $url (data in $WORK/data)"
  BLOG_DATA_DIR="$WORK/data" BLOG_HOST=127.0.0.1 BLOG_PORT="$port" BLOG_PUBLIC_BASE_URL="$url" \
    BLOG_ACTUATOR_TOKEN="$token" BLOG_LOG=warn \
    "$BLOG_BINS/blog-gateway" serve >"$WORK/gateway.log" 2>&1 &
  SERVER_PID=$!
  local deadline=$((SECONDS + READY_SECONDS))
  until curl -fsS -o /dev/null "$url/actuator/health/liveness" 2>/dev/null; do
    if ! kill -0 "$SERVER_PID" 2>/dev/null || ((SECONDS > deadline)); then
      cat "$WORK/gateway.log" >&2
      die "gateway: not serving after $(since "$started")"
    fi
    sleep 0.2
  done
  log "gateway: serving after $(since "$started")"
  BLOG_ACTUATOR_TOKEN="$token" smoke "$url" || status=$?
  stop "$SERVER_PID" INT 30 || { log "gateway: exited with status $? on SIGINT"; status=1; }
  SERVER_PID=""
  if ((status != 0)); then
    tail -n 50 "$WORK/gateway.log" >&2
    die "gateway: failed after $(since "$started") (above; the gateway's log last)"
  fi
  rm -rf "$WORK"
  WORK=""
  log "gateway: passed in $(since "$started") (start, smoke test, stop)"
}

# The emulators this state directory has running, by script.
running_emulators() {
  local script
  for script in dynamodb-local.sh moto.sh s3s.sh; do
    if "$EMULATORS/$script" status >/dev/null 2>&1; then echo "$script"; fi
  done
}

# The stack on the emulators (with-emulators.sh starts those not running and stops them after).
run_stack() {
  local started before status=0 script
  started=$(now_ms)
  before="$(running_emulators)"
  "$EMULATORS/with-emulators.sh" "$SELF" stack-on-emulators || status=$?
  for script in $(running_emulators); do
    if ! grep -qx "$script" <<<"$before"; then
      log "stack: ${script%.sh} was started for this run and is still running"
      status=1
    fi
  done
  ((status == 0)) || die "stack: failed ($(since "$started"))"
  log "stack: passed in $(since "$started") (emulators, start, smoke test, stop)"
}

# The stack on LocalStack (with-localstack.sh starts LocalStack and its DynamoDB Local unless
# both run, and stops them after).
run_localstack() {
  local started status=0 script
  started=$(now_ms)
  EMULATORS_STATE_DIR="$ROOT/.emulators/localstack" running_emulators >"$WORK_BEFORE" || true
  "$ROOT/infra/localstack/with-localstack.sh" "$SELF" stack-on-localstack || status=$?
  for script in dynamodb-local.sh localstack.sh; do
    if EMULATORS_STATE_DIR="$ROOT/.emulators/localstack" "$EMULATORS/$script" status >/dev/null 2>&1 &&
      ! grep -qx "$script" "$WORK_BEFORE"; then
      log "localstack: ${script%.sh} was started for this run and is still running"
      status=1
    fi
  done
  ((status == 0)) || die "localstack: failed ($(since "$started"))"
  log "localstack: passed in $(since "$started") (LocalStack and its resources, start, smoke" \
    "test, stop)"
}

# `make invoke` of one sample on the running stack (its serving file, $1): get-me answered with
# event_user's data, the placeholder rendered by a registration and a login.
invoke_sample() {
  local started answer
  started=$(now_ms)
  answer="$(BLOG_STACK_SERVING_FILE="$1" make --no-print-directory -s -C "$ROOT" invoke \
    FUNCTION=users EVENT=events/users/get-me.json CARGO="$CARGO")" || return 1
  python3 - "$answer" <<'EOF' || { log "stack: make invoke answered: $answer"; return 1; }
import json, sys
response = json.loads(sys.argv[1])
assert response["statusCode"] == 200, response["statusCode"]
assert json.loads(response["body"])["data"]["username"] == "event_user"
EOF
  log "stack: make invoke FUNCTION=users EVENT=events/users/get-me.json answered event_user" \
    "in $(since "$started")"
}

# Inside with-emulators.sh: `blog-stack serve` on a free port in a session of its own (to find
# anything it leaves behind), its Lambda Invoke API on another (never 9000, which `make stack`
# may hold), the smoke test, `make invoke`, SIGINT, and the checks after it stopped.
stack_on_emulators() {
  local port url started status=0 line run_dir leftovers
  started=$(now_ms)
  WORK="$(mktemp -d)"
  port="$(free_port)"
  url="http://127.0.0.1:$port"
  log "$TARGET: blog-stack serve on $url"
  : >"$WORK/stack.log" # there before the first look for the ready line
  BLOG_HOST=127.0.0.1 BLOG_PORT="$port" BLOG_STACK_INVOKE_PORT=0 \
    BLOG_STACK_SERVING_FILE="$WORK/serving.json" \
    setsid "$BLOG_BINS/blog-stack" serve ${SERVE_ARGS[@]+"${SERVE_ARGS[@]}"} >"$WORK/stack.log" 2>&1 &
  SERVER_PID=$!
  local deadline=$((SECONDS + READY_SECONDS))
  # The last line of its start (the serving line and the actuator token's are before it).
  until grep -q '^\[stack\] function logs in ' "$WORK/stack.log"; do
    if ! kill -0 "$SERVER_PID" 2>/dev/null || ((SECONDS > deadline)); then
      tail -n 50 "$WORK/stack.log" >&2
      die "$TARGET: not serving after $(since "$started")"
    fi
    sleep 0.2
  done
  line="$(grep -m1 '^\[stack\] serving the API on ' "$WORK/stack.log")"
  [[ "$line" == *"$url"* ]] || die "$TARGET: serving elsewhere than $url: $line"
  log "$TARGET: serving after $(since "$started")"
  # The actuator's token: generated into its secret, as the template does by default.
  local token_file
  token_file="$(sed -n 's/^\[stack\] .*the token is in \(.*\) (BLOG_ACTUATOR_TOKEN chooses it)$/\1/p' \
    "$WORK/stack.log")"
  [[ -r "$token_file" ]] || die "$TARGET: no actuator token file announced"
  BLOG_ACTUATOR_TOKEN="$(cat "$token_file")" smoke "$url" || status=$?
  if [[ "$TARGET" == stack ]]; then
    ((status != 0)) || invoke_sample "$WORK/serving.json" || status=$?
  fi
  local session=$SERVER_PID
  stop "$SERVER_PID" INT 60 || { log "$TARGET: exited with status $? on SIGINT"; status=1; }
  SERVER_PID=""
  # The functions die with the stack (a parent-death signal): give the kernel a moment.
  for _ in $(seq 1 50); do
    leftovers="$(ps -o pid=,args= -s "$session" || true)"
    [[ -n "$leftovers" ]] || break
    sleep 0.1
  done
  if [[ -n "$leftovers" ]]; then
    log "$TARGET: processes left behind after it stopped:"$'\n'"$leftovers"
    kill -s KILL -- "-$session" 2>/dev/null || true
    status=1
  fi
  if grep '^\[stack\] IAM: ' "$WORK/stack.log" >&2; then
    log "$TARGET: a function made AWS calls template.yaml does not grant (above)"
    status=1
  fi
  run_dir="$(sed -n 's/^\[stack\] function logs in \(.*\); Ctrl-C stops everything$/\1/p' \
    "$WORK/stack.log")"
  if ((status != 0)); then
    grep -v '^\[stack\] IAM: ' "$WORK/stack.log" | tail -n 50 >&2
    die "$TARGET: failed (above); function logs in ${run_dir:-target/stack/run}"
  fi
  [[ -z "$run_dir" ]] || rm -rf "$run_dir"
}

case "${1:-all}" in
  gateway | stack | localstack | all)
    # The targets' configuration is this script's: only the administrator comes from outside.
    for name in $(compgen -v BLOG_); do
      case "$name" in
        BLOG_ADMIN_USERNAME | BLOG_ADMIN_PASSWORD | BLOG_ADMIN_EMAIL | BLOG_BINS) ;;
        *) unset "$name" ;;
      esac
    done
    export BLOG_ADMIN_USERNAME="${BLOG_ADMIN_USERNAME:-admin}"
    export BLOG_ADMIN_PASSWORD="${BLOG_ADMIN_PASSWORD:-Admin12345}"
    export BLOG_ADMIN_EMAIL="${BLOG_ADMIN_EMAIL:-admin@example.com}"
    if [[ -z "${BLOG_BINS:-}" ]]; then
      # One build each, as `cargo run` builds them (a joint build would unify features).
      log "building blog-smoke, blog-gateway and blog-stack (debug)"
      "$CARGO" build -q -p blog-smoke --bin blog-smoke
      "$CARGO" build -q -p local-gateway --bin blog-gateway
      "$CARGO" build -q -p blog-stack --bin blog-stack
      BLOG_BINS="${CARGO_TARGET_DIR:-$ROOT/target}/debug"
    fi
    export BLOG_BINS
    case "${1:-all}" in
      gateway) run_gateway ;;
      stack) run_stack ;;
      localstack) run_localstack ;;
      all) run_gateway && run_stack && run_localstack ;;
    esac
    ;;
  stack-on-emulators) stack_on_emulators ;;
  stack-on-localstack)
    TARGET=localstack
    SERVE_ARGS=(--existing infra/localstack/resources --parameter Embedder=local)
    stack_on_emulators
    ;;
  *) die "usage: $0 [gateway|stack|localstack]" ;;
esac
