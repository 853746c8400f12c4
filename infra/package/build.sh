#!/usr/bin/env bash
# Builds every Lambda function in release for one architecture with cargo-lambda (zig as the
# linker: no Docker) into target/lambda/<arch>/<binary>/bootstrap:
#
#   infra/package/build.sh x86_64|arm64
#
# cargo-lambda and zig come from .tools/venv (infra/emulators/install.sh pins them). Cargo's
# output goes to PACKAGE_TARGET_DIR (default target/package), apart from the debug builds of the
# tests, and the build runs under `nice`. FUNCTIONS (space-separated binaries) narrows the set.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
# Every function binary of the workspace (one package each, named like its binary).
ALL_FUNCTIONS="auth users categories tags articles admin-articles comments admin-comments files ops worker outbox-sweep"
FUNCTIONS="${FUNCTIONS:-$ALL_FUNCTIONS}"

arch="${1:-}"
case "$arch" in
  x86_64) triple=x86_64-unknown-linux-gnu ;;
  arm64) triple=aarch64-unknown-linux-gnu ;;
  *) echo "usage: $0 x86_64|arm64" >&2; exit 2 ;;
esac

export PATH="$ROOT/.tools/venv/bin:$PATH"
export CARGO_TARGET_DIR="${PACKAGE_TARGET_DIR:-$ROOT/target/package}"
command -v cargo-lambda >/dev/null ||
  { echo "cargo-lambda missing from .tools/venv: run infra/emulators/install.sh" >&2; exit 1; }
if command -v rustup >/dev/null && ! rustup target list --installed | grep -qx "$triple"; then
  rustup target add "$triple"
fi

out="target/lambda/$arch"
start=$(date +%s)
# One cargo invocation per function, so that each resolves only its own features of blog-api
# and links only the AWS clients it uses (one build of all would unify them: every function
# would carry S3, SQS and Bedrock). Dependencies with the same features compile once; each
# binary links with the release profile (LTO, one codegen unit, stripped).
for function in $FUNCTIONS; do
  function_start=$(date +%s)
  nice -n 10 cargo lambda build --release --target "$triple" -p "$function" --lambda-dir "$out"
  [[ -x "$out/$function/bootstrap" ]] || { echo "missing $out/$function/bootstrap" >&2; exit 1; }
  printf '[package] %s %-15s %9s bytes, built in %s s\n' "$arch" "$function" \
    "$(stat -c %s "$out/$function/bootstrap")" "$(($(date +%s) - function_start))"
done
elapsed=$(($(date +%s) - start))
echo "[package] $arch: $(wc -w <<<"$FUNCTIONS") functions built in ${elapsed}s into $out/"
