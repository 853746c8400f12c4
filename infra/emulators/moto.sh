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

# shellcheck source=emulator.sh
source "$(dirname "${BASH_SOURCE[0]}")/emulator.sh"

# shellcheck disable=SC2034 # read by emulator.sh
NAME=moto
LABEL=moto
PROCESS=moto_server
START_TIMEOUT="${MOTO_START_TIMEOUT:-60}"
# moto's dashboard answers plain GETs.
PROBE_METHOD=GET
PROBE_PATH=/moto-api/
MOTO_SERVER="$ROOT/.tools/venv/bin/moto_server"

prepare() {
  [[ -x "$MOTO_SERVER" ]] || die "moto not installed: run infra/emulators/install.sh"
}

launch() {
  exec "$MOTO_SERVER" -H 127.0.0.1 -p "$1"
}

emulator_main "$@"
