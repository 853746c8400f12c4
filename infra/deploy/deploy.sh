#!/usr/bin/env bash
# `make deploy`: builds every function with `sam build` (Metadata BuildMethod rust-cargolambda:
# cargo-lambda, zig for the cross-compilation, no Docker) for one architecture, then deploys with
# `sam deploy`: guided the first time (it asks for the stack name, region and parameters and
# writes samconfig.toml), from samconfig.toml afterwards.
#
# The architecture is ARCH when given (make deploy ARCH=x86_64), else the one samconfig.toml
# deployed last, else the template's default, arm64; build and deployment always use the same.
# A later ARCH changes only the Architecture parameter: the other saved values are kept.
# DRY_RUN=1 prints the sam commands instead of running them (SAMCONFIG names another file).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
SAM="$ROOT/.tools/sam/bin/sam"
CONFIG="${SAMCONFIG:-$ROOT/samconfig.toml}"
# cargo-lambda and zig, pinned by infra/emulators/install.sh.
export PATH="$ROOT/.tools/venv/bin:$PATH"
export SAM_CLI_TELEMETRY=0
# SAM marks BuildMethod rust-cargolambda as a preview: opt in, so `sam build` never stops at its
# [y/N] question.
export SAM_CLI_BETA_RUST_CARGO_LAMBDA=1

run() {
  if [[ "${DRY_RUN:-0}" == "1" ]]; then
    printf '%q ' "$@" | sed "s|$ROOT/||g"
    echo
  else
    "$@"
  fi
}

[[ "${DRY_RUN:-0}" == "1" || -x "$SAM" ]] ||
  { echo "the SAM CLI is missing: make deploy installs it" >&2; exit 1; }

# The parameter overrides samconfig.toml holds, with Architecture set to $1 (one per line).
overrides_with() {
  python3 - "$CONFIG" "$1" <<'PY'
import shlex, sys, tomllib
path, arch = sys.argv[1], sys.argv[2]
try:
    with open(path, "rb") as file:
        saved = tomllib.load(file)["default"]["deploy"]["parameters"].get("parameter_overrides", "")
except FileNotFoundError:
    saved = ""
pairs = dict(p.split("=", 1) for p in shlex.split(saved if isinstance(saved, str) else " ".join(saved)))
if arch:
    pairs["Architecture"] = arch
for key, value in pairs.items():
    print(f"{key}={value}")
PY
}

arch="${ARCH:-}"
if [[ -z "$arch" ]]; then
  arch=$(overrides_with "" | sed -n 's/^Architecture=//p')
  arch="${arch:-arm64}"
fi
[[ "$arch" == arm64 || "$arch" == x86_64 ]] || { echo "ARCH must be arm64 or x86_64" >&2; exit 2; }

if [[ "${DRY_RUN:-0}" != "1" ]] && command -v rustup >/dev/null; then
  case "$arch" in
    arm64) triple=aarch64-unknown-linux-gnu ;;
    x86_64) triple=x86_64-unknown-linux-gnu ;;
  esac
  rustup target list --installed | grep -qx "$triple" || rustup target add "$triple"
fi

echo "[deploy] sam build for $arch (release builds, one function at a time)"
run "$SAM" build --parameter-overrides "Architecture=$arch"

if [[ ! -f "$CONFIG" ]]; then
  echo "[deploy] first deployment: sam deploy --guided (writes samconfig.toml)"
  run "$SAM" deploy --guided --parameter-overrides "Architecture=$arch"
else
  mapfile -t overrides < <(overrides_with "$arch")
  run "$SAM" deploy --parameter-overrides "${overrides[@]}"
fi
