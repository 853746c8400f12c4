#!/usr/bin/env bash
# Runs a command with DynamoDB Local up and exits with the command's status:
#
#   infra/emulators/with-emulators.sh cargo test -p blog-shared --features dynamodb ...
#
# Exports BLOG_TEST_DYNAMODB_ENDPOINT and static test credentials (AWS_ACCESS_KEY_ID=test,
# AWS_SECRET_ACCESS_KEY=test, AWS_REGION=us-east-1). Starts the emulator and always stops it
# afterwards; when one is already running (dynamodb-local.sh start), it is reused and left running.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
[[ $# -gt 0 ]] || { echo "usage: $0 CMD [ARGS...]" >&2; exit 2; }

if endpoint=$("$HERE/dynamodb-local.sh" status); then
  echo "[with-emulators] reusing DynamoDB Local at $endpoint" >&2
else
  trap '"$HERE/dynamodb-local.sh" stop' EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
  endpoint=$("$HERE/dynamodb-local.sh" start)
fi

export BLOG_TEST_DYNAMODB_ENDPOINT="$endpoint"
export AWS_ACCESS_KEY_ID=test
export AWS_SECRET_ACCESS_KEY=test
export AWS_REGION=us-east-1
unset AWS_SESSION_TOKEN AWS_PROFILE

status=0
"$@" || status=$?
exit "$status"
