#!/usr/bin/env bash
# Runs a command with DynamoDB Local, moto (SQS) and s3s-fs (S3) up and exits with the command's
# status:
#
#   infra/emulators/with-emulators.sh cargo test -p blog-api --features dynamodb ...
#
# Exports BLOG_TEST_DYNAMODB_ENDPOINT, BLOG_TEST_SQS_ENDPOINT (moto; it serves S3 too, with object
# tagging but without checking signatures), BLOG_TEST_S3_ENDPOINT (s3s-fs, which verifies SigV4)
# and static test credentials (AWS_ACCESS_KEY_ID=test, AWS_SECRET_ACCESS_KEY=test,
# AWS_REGION=us-east-1). Starts each
# emulator and always stops it afterwards; one already running (dynamodb-local.sh start,
# moto.sh start, s3s.sh start) is reused and left running. Fails without running the command when
# any emulator does not start.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
[[ $# -gt 0 ]] || { echo "usage: $0 CMD [ARGS...]" >&2; exit 2; }

# Emulator scripts whose instance this run started; stopped on exit.
started=()
# shellcheck disable=SC2317 # called by the EXIT trap
stop_started() {
  local script
  for script in ${started[@]+"${started[@]}"}; do
    "$HERE/$script" stop || true
  done
}
trap stop_started EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Sets `endpoint` to the endpoint of the emulator run by script $1 (named $2 in messages),
# starting it unless it is already running.
endpoint=""
start_or_reuse() {
  if endpoint=$("$HERE/$1" status); then
    echo "[with-emulators] reusing $2 at $endpoint" >&2
    return 0
  fi
  started+=("$1")
  if ! endpoint=$("$HERE/$1" start); then
    echo "[with-emulators] error: $2 did not start" >&2
    exit 1
  fi
}

start_or_reuse dynamodb-local.sh "DynamoDB Local"
export BLOG_TEST_DYNAMODB_ENDPOINT="$endpoint"
start_or_reuse moto.sh "moto"
export BLOG_TEST_SQS_ENDPOINT="$endpoint"
start_or_reuse s3s.sh "s3s-fs"
export BLOG_TEST_S3_ENDPOINT="$endpoint"
export AWS_ACCESS_KEY_ID=test
export AWS_SECRET_ACCESS_KEY=test
export AWS_REGION=us-east-1
unset AWS_SESSION_TOKEN AWS_PROFILE

status=0
"$@" || status=$?
exit "$status"
