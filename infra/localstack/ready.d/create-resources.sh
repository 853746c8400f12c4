#!/usr/bin/env bash
# LocalStack's ready hook (/etc/localstack/init/ready.d): creates what template.yaml declares
# and a local run uses, from the request files in /etc/localstack/blog (resources/, which
# infra/stack/tests/integration/localstack.rs holds against the template): the table with its TTL
# attribute, the dead-letter queue and the event queue, the uploads bucket, and the secrets
# (generated JWT and webhook signing keys; the administrator's password from
# BLOG_ADMIN_PASSWORD; the actuator's token from BLOG_ACTUATOR_TOKEN).
#
# The same hook runs in the Docker-free runtime of `make localstack` (infra/localstack/with-localstack.sh),
# which sets BLOG_LOCALSTACK_RESOURCES to resources/ and BLOG_LOCALSTACK_DYNAMODB_ENDPOINT to the
# DynamoDB Local that holds the table there (LocalStack's own DynamoDB downloads its engine on
# first use).
set -euo pipefail

resources=${BLOG_LOCALSTACK_RESOURCES:-/etc/localstack/blog}
export AWS_DEFAULT_REGION=us-east-1

create() {
  local service=$1 operation=$2 file=$3
  shift 3
  local cli=(awslocal)
  if [[ "$service" == dynamodb && -n "${BLOG_LOCALSTACK_DYNAMODB_ENDPOINT:-}" ]]; then
    cli=(aws --endpoint-url "$BLOG_LOCALSTACK_DYNAMODB_ENDPOINT")
  fi
  "${cli[@]}" "$service" "$operation" --cli-input-json "file://$resources/$file" "$@" >/dev/null
  echo "blog: $service $operation $file"
}

create dynamodb create-table table.json
create dynamodb update-time-to-live table-ttl.json
create sqs create-queue events-dead-letter-queue.json
create sqs create-queue events-queue.json
create s3api create-bucket uploads-bucket.json
random_hex() { head -c 32 /dev/urandom | od -An -vtx1 | tr -d ' \n'; }
create secretsmanager create-secret jwt-secret.json --secret-string "$(random_hex)"
create secretsmanager create-secret webhook-signing-secret.json --secret-string "$(random_hex)"
create secretsmanager create-secret actuator-token-secret.json \
  --secret-string "${BLOG_ACTUATOR_TOKEN:?the actuator token is unset}"
create secretsmanager create-secret admin-password-secret.json \
  --secret-string "${BLOG_ADMIN_PASSWORD:?the administrator password is unset}"
