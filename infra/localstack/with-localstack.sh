#!/usr/bin/env bash
# Runs a command with LocalStack's runtime (no Docker) and the DynamoDB Local that holds the
# table beside it, the stack's resources created by LocalStack's ready hook (ready.d/, from
# resources/: the files the compose file mounts), and exits with the command's status:
#
#   infra/localstack/with-localstack.sh blog-stack serve --existing infra/localstack/resources
#
# Exports what a stack on them reads (blog-stack's `BLOG_TEST_*_ENDPOINT`: DynamoDB Local for
# the table, LocalStack for SQS, Secrets Manager and S3) and static test credentials. The two
# run in their own state directory (.emulators/localstack, or EMULATORS_STATE_DIR/localstack),
# apart from `make stack`'s emulators: a table left in a reused DynamoDB Local would fail the
# hook. Both are started together and stopped afterwards; when both already run (started by
# an earlier `localstack.sh start`), they are reused and left running.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
EMULATORS="$ROOT/infra/emulators"
[[ $# -gt 0 ]] || { echo "usage: $0 CMD [ARGS...]" >&2; exit 2; }
export EMULATORS_STATE_DIR="${EMULATORS_STATE_DIR:-$ROOT/.emulators}/localstack"

log() { printf '[with-localstack] %s\n' "$*" >&2; }

started=0
# shellcheck disable=SC2317 # called by the EXIT trap
stop_started() {
  if ((started)); then
    "$EMULATORS/localstack.sh" stop || true
    "$EMULATORS/dynamodb-local.sh" stop || true
  fi
}
trap stop_started EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

if dynamodb=$("$EMULATORS/dynamodb-local.sh" status) &&
  localstack=$("$EMULATORS/localstack.sh" status); then
  log "reusing DynamoDB Local at $dynamodb and LocalStack at $localstack"
else
  # One without the other holds no resources its partner knows: both start afresh.
  "$EMULATORS/localstack.sh" stop >/dev/null 2>&1 || true
  "$EMULATORS/dynamodb-local.sh" stop >/dev/null 2>&1 || true
  started=1
  began=$SECONDS
  dynamodb=$("$EMULATORS/dynamodb-local.sh" start)
  localstack=$(BLOG_LOCALSTACK_DYNAMODB_ENDPOINT="$dynamodb" "$EMULATORS/localstack.sh" start)
  log "LocalStack at $localstack (S3, SQS, Secrets Manager) and DynamoDB Local at $dynamodb," \
    "resources created, in $((SECONDS - began)) s"
fi

export BLOG_TEST_DYNAMODB_ENDPOINT="$dynamodb"
export BLOG_TEST_SQS_ENDPOINT="$localstack"
export BLOG_TEST_S3_ENDPOINT="$localstack"
export AWS_ACCESS_KEY_ID=test
export AWS_SECRET_ACCESS_KEY=test
export AWS_REGION=us-east-1
unset AWS_SESSION_TOKEN AWS_PROFILE

status=0
"$@" || status=$?
exit "$status"
