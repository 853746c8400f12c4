#!/usr/bin/env bash
# Starts or stops LocalStack's runtime without Docker (installed by install.sh with
# EMULATORS_WITH_LOCALSTACK=1 into .tools/localstack) in the background, with S3, SQS and Secrets
# Manager, and its ready hook: infra/localstack/ready.d, the same script and request files the
# compose file mounts, creating the stack's resources.
#
#   localstack.sh start    start on a free port (no-op if already running), wait until the ready
#                          hook succeeded; prints the endpoint
#   localstack.sh stop     stop the instance started by `start`
#   localstack.sh status   print the endpoint and exit 0 when running, exit 1 otherwise
#
# The table stays on DynamoDB Local, given as BLOG_LOCALSTACK_DYNAMODB_ENDPOINT (LocalStack's
# own DynamoDB downloads Java 21 and DynamoDB Local on first use, which an offline machine
# cannot; infra/localstack/with-localstack.sh starts the two together). The hook stores
# BLOG_ADMIN_PASSWORD and BLOG_ACTUATOR_TOKEN in their secrets. State lives in .emulators/ at the
# repo root (override with EMULATORS_STATE_DIR): localstack.log, .pid, .endpoint and LocalStack's
# own files under localstack/.
set -euo pipefail

# shellcheck source=emulator.sh
source "$(dirname "${BASH_SOURCE[0]}")/emulator.sh"

# shellcheck disable=SC2034 # read by emulator.sh
NAME=localstack
LABEL=localstack
PROCESS=localstack.runtime.main
START_TIMEOUT="${LOCALSTACK_START_TIMEOUT:-120}"
PROBE_METHOD=GET
PROBE_PATH=/_localstack/health
VENV="$ROOT/.tools/localstack"
FILES="$STATE/localstack"

prepare() {
  [[ -x "$VENV/bin/python" ]] ||
    die "LocalStack not installed: run EMULATORS_WITH_LOCALSTACK=1 infra/emulators/install.sh"
  [[ -n "${BLOG_LOCALSTACK_DYNAMODB_ENDPOINT:-}" ]] ||
    die "BLOG_LOCALSTACK_DYNAMODB_ENDPOINT is unset: the DynamoDB Local that holds the table"
  rm -rf "$FILES"
  # Host mode keeps LocalStack's directories under FILESYSTEM_ROOT, init hooks included.
  mkdir -p "$FILES/root/etc/localstack/init"
  ln -s "$ROOT/infra/localstack/ready.d" "$FILES/root/etc/localstack/init/ready.d"
  # Its TLS certificate (LocalStack's own generator fails with the pyOpenSSL it installs).
  "$VENV/bin/python" - "$FILES/server.test.pem" <<'PY'
import datetime, sys
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
key = ec.generate_private_key(ec.SECP256R1())
name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost.localstack.cloud")])
now = datetime.datetime.now(datetime.timezone.utc)
cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
        .public_key(key.public_key()).serial_number(x509.random_serial_number())
        .not_valid_before(now).not_valid_after(now + datetime.timedelta(days=30))
        .sign(key, hashes.SHA256()))
with open(sys.argv[1], "wb") as out:
    out.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption()))
    out.write(cert.public_bytes(serialization.Encoding.PEM))
PY
}

launch() {
  # OVERRIDE_IN_DOCKER=0: LocalStack takes any container (a CI machine, /.dockerenv) for its own
  # image and looks for its hooks in /etc/localstack. DNS_ADDRESS=0: no DNS server.
  exec env OVERRIDE_IN_DOCKER=0 SERVICES=s3,sqs,secretsmanager GATEWAY_LISTEN="127.0.0.1:$1" \
    FILESYSTEM_ROOT="$FILES/root" CUSTOM_SSL_CERT_PATH="$FILES/server.test.pem" DNS_ADDRESS=0 \
    SKIP_SSL_CERT_DOWNLOAD=1 DISABLE_EVENTS=1 PATH="$VENV/bin:$PATH" \
    AWS_ENDPOINT_URL="http://127.0.0.1:$1" AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test \
    BLOG_LOCALSTACK_RESOURCES="$ROOT/infra/localstack/resources" \
    BLOG_ADMIN_PASSWORD="${BLOG_ADMIN_PASSWORD:-Admin12345}" \
    BLOG_ACTUATOR_TOKEN="${BLOG_ACTUATOR_TOKEN:-local-actuator-token}" \
    "$VENV/bin/python" -m localstack.runtime.main
}

cleanup() { rm -rf "$FILES"; }

# Waits until the ready hook ran (what the compose file's health check waits for).
ready() {
  local endpoint=$1 deadline=$((SECONDS + START_TIMEOUT)) state
  while ((SECONDS < deadline)); do
    state=$(curl -fsS "$endpoint/_localstack/init/ready" 2>/dev/null || true)
    case "$state" in
      *'"state": "SUCCESSFUL"'*) return 0 ;;
      *'"state": "ERROR"'*)
        tail -n 40 "$(log_file)" >&2
        die "the ready hook failed (above; log $(log_file))"
        ;;
    esac
    sleep 0.2
  done
  die "the ready hook did not finish in ${START_TIMEOUT}s (log $(log_file))"
}

case "${1:-}" in
  start)
    endpoint=$(emulator_start)
    ready "$endpoint"
    echo "$endpoint"
    ;;
  *) emulator_main "$@" ;;
esac
