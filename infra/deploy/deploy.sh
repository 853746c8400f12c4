#!/usr/bin/env bash
# `make deploy`, `make destroy`, `make smoke` without URL: infra/deploy/deploy.py (its docstring
# has the questions, the variables that answer them and what is saved) on the SAM CLI's Python,
# .tools/sam/bin/python (`make deploy-tools` installs it; boto3 and SAM's samconfig.toml reader and
# writer come with the SAM CLI), whatever python3 the PATH has.
#
#   infra/deploy/deploy.sh [deploy]            sam build + sam deploy of CONFIG_ENV's stack
#   infra/deploy/deploy.sh destroy             sam delete of it, then what it keeps
#   infra/deploy/deploy.sh smoke CMD [ARGS]    CMD (blog-smoke) --url <ApiUrl>, with the secrets
#
# `sam build` builds every function (Metadata BuildMethod rust-cargolambda: cargo-lambda, zig for
# the cross-compilation, no Docker) for the architecture `sam deploy` deploys: ARCH when given,
# else the saved one, else arm64. BLOG_DEPLOY_PYTHON names another interpreter.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
PYTHON="${BLOG_DEPLOY_PYTHON:-$ROOT/.tools/sam/bin/python}"
[[ -x "$PYTHON" ]] ||
  { echo "[deploy] $PYTHON is missing: make deploy-tools installs it" >&2; exit 1; }
# cargo-lambda and zig, pinned by infra/emulators/install.sh.
export PATH="$ROOT/.tools/venv/bin:$PATH"
export SAM_CLI_TELEMETRY=0
# SAM marks BuildMethod rust-cargolambda as a preview: opt in, so `sam build` never stops at its
# [y/N] question.
export SAM_CLI_BETA_RUST_CARGO_LAMBDA=1
exec "$PYTHON" "$ROOT/infra/deploy/deploy.py" "$@"
