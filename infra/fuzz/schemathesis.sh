#!/usr/bin/env bash
# Schema-driven fuzzing of the local gateway: schemathesis generates requests from
# docs/openapi.json (valid and invalid ones, every operation) and sends them, with an
# administrator's token, to the `blog-gateway` binary (debug build) serving a fresh data
# directory on a free port. Fails when any answer is a 5xx, or the connection drops (a panic).
#
#   FUZZ_EXAMPLES  test cases per operation and phase (default 25)
#   FUZZ_SEED      schemathesis seed, to replay a run (default: random, printed)
#   FUZZ_MAX_TIME  hard limit of the run in seconds (default 600; a run takes a few minutes)
#
# Needs .tools/venv/bin/schemathesis (infra/emulators/install.sh pins it) and cargo; BLOG_BINS,
# when set, is a directory where blog-gateway is already built (the Makefile's).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
SCHEMATHESIS="$ROOT/.tools/venv/bin/schemathesis"
SPEC="$ROOT/docs/openapi.json"
EXAMPLES="${FUZZ_EXAMPLES:-25}"
MAX_TIME="${FUZZ_MAX_TIME:-600}"
ADMIN_USER=fuzzadmin
ADMIN_PASSWORD=Fuzz12345

log() { printf '[fuzz-api] %s\n' "$*"; }
die() { printf '[fuzz-api] error: %s\n' "$*" >&2; exit 1; }

[[ -x "$SCHEMATHESIS" ]] || die "schemathesis missing: run infra/emulators/install.sh"
[[ -f "$SPEC" ]] || die "docs/openapi.json missing"

if [[ -n "${BLOG_BINS:-}" ]]; then
  BIN="$BLOG_BINS/blog-gateway" # built already (`make test` gives its test build's)
else
  log "building blog-gateway (debug)"
  cargo build --quiet -p local-gateway --bin blog-gateway
  BIN="${CARGO_TARGET_DIR:-$ROOT/target}/debug/blog-gateway"
fi
[[ -x "$BIN" ]] || die "$BIN missing"

WORK="$(mktemp -d)"
GATEWAY_PID=""
cleanup() {
  if [[ -n "$GATEWAY_PID" ]] && kill -0 "$GATEWAY_PID" 2>/dev/null; then
    kill "$GATEWAY_PID" 2>/dev/null || true
    wait "$GATEWAY_PID" 2>/dev/null || true
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT

PORT="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
BASE="http://127.0.0.1:$PORT"
env -i PATH="$PATH" HOME="$WORK" \
  BLOG_DATA_DIR="$WORK/data" BLOG_PORT="$PORT" BLOG_LOG=warn \
  BLOG_ADMIN_USERNAME="$ADMIN_USER" BLOG_ADMIN_PASSWORD="$ADMIN_PASSWORD" \
  BLOG_ADMIN_EMAIL=fuzz@example.com \
  "$BIN" serve >"$WORK/gateway.log" 2>&1 &
GATEWAY_PID=$!

for _ in $(seq 1 300); do
  curl -fsS -o /dev/null "$BASE/api/v1/categories" 2>/dev/null && break
  kill -0 "$GATEWAY_PID" 2>/dev/null || { cat "$WORK/gateway.log" >&2; die "the gateway exited"; }
  sleep 0.1
done
log "gateway (pid $GATEWAY_PID) on $BASE"

TOKEN="$(curl -fsS "$BASE/api/v1/auth/login" -H 'content-type: application/json' \
  -d "{\"username\":\"$ADMIN_USER\",\"password\":\"$ADMIN_PASSWORD\"}" |
  python3 -c 'import json, sys; print(json.load(sys.stdin)["data"]["token"])')"

seed_args=()
[[ -n "${FUZZ_SEED:-}" ]] && seed_args=(--seed "$FUZZ_SEED")

log "schemathesis: $EXAMPLES examples per operation, at most $MAX_TIME s"
status=0
# From the temporary directory: schemathesis and hypothesis keep their caches in the current one.
# One worker: with two threads, hypothesis' ast.parse calls race on CPython 3.11's per-interpreter
# AST recursion counter ("SystemError: AST constructor recursion depth mismatch", a tool error
# seen once in a run whose 3,551 cases all passed, not reproducible with the same seed).
cd "$WORK"
timeout "$MAX_TIME" "$SCHEMATHESIS" run "$SPEC" \
  --url "$BASE" \
  --header "Authorization: Bearer $TOKEN" \
  --checks not_a_server_error \
  --max-examples "$EXAMPLES" \
  --workers 1 \
  --request-timeout 30 \
  --suppress-health-check all \
  --warnings off \
  ${seed_args[@]+"${seed_args[@]}"} || status=$?

if ! kill -0 "$GATEWAY_PID" 2>/dev/null; then
  cat "$WORK/gateway.log" >&2
  die "the gateway died during the run"
fi
if grep -q "panicked" "$WORK/gateway.log"; then
  grep -B2 -A10 "panicked" "$WORK/gateway.log" >&2
  die "the gateway panicked"
fi
# The details of a 5xx are only in the log.
grep "internal error" "$WORK/gateway.log" | head -20 >&2 || true
[[ "$status" -ne 124 ]] || die "the run took longer than $MAX_TIME s"
[[ "$status" -eq 0 ]] || die "schemathesis found failures (exit $status)"
log "no server error"
