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

# shellcheck source=emulator.sh
source "$(dirname "${BASH_SOURCE[0]}")/emulator.sh"

# shellcheck disable=SC2034 # read by emulator.sh
NAME=s3s
LABEL=s3s
PROCESS=s3s-fs
START_TIMEOUT="${S3S_START_TIMEOUT:-30}"
# An unsigned request gets an S3 error, which is an answer.
PROBE_METHOD=GET
PROBE_PATH=/
S3S_FS="$ROOT/.tools/cargo/bin/s3s-fs"
DATA_DIR="$STATE/s3s-data"

prepare() {
  [[ -x "$S3S_FS" ]] || die "s3s-fs not installed: run infra/emulators/install.sh"
  rm -rf "$DATA_DIR"
  mkdir -p "$DATA_DIR"
}

launch() {
  exec "$S3S_FS" --host 127.0.0.1 --port "$1" --access-key test --secret-key test "$DATA_DIR"
}

cleanup() {
  rm -rf "$DATA_DIR"
}

emulator_main "$@"
