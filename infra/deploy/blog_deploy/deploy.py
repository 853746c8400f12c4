"""`deploy`: the answers saved to samconfig.toml, then sam build and sam deploy."""

from __future__ import annotations

import os
import shutil
import subprocess

from .answers import answers
from .common import DRY_RUN, Stop, log, run, sam
from .samconfig import Config, overrides_text

# The template's SAM transform expands each function's role (none has a fixed name): CAPABILITY_IAM.
# sam deploy creates a change set, so the AWS::Serverless transform needs no CAPABILITY_AUTO_EXPAND
# (the template has no other macro and no nested application).
CAPABILITIES = "CAPABILITY_IAM"


def rust_target(arch: str) -> None:
    """The Rust target of the architecture, added with rustup when missing (cargo-lambda builds
    for it)."""
    rustup = shutil.which(os.environ.get("RUSTUP") or "rustup")
    if rustup is None:
        return
    triple = {"arm64": "aarch64-unknown-linux-gnu", "x86_64": "x86_64-unknown-linux-gnu"}[arch]
    installed = subprocess.run(
        [rustup, "target", "list", "--installed"], capture_output=True, text=True, check=True
    ).stdout.split()
    if triple not in installed:
        subprocess.run([rustup, "target", "add", triple], check=True)


def credentials_present() -> None:
    """Stops before a half-hour build that could not be deployed: no AWS credentials at all."""
    import boto3

    if boto3.session.Session().get_credentials() is None:
        raise Stop(
            2,
            "no AWS credentials found: configure the AWS CLI (aws configure, aws sso login) or "
            "set AWS_PROFILE / AWS_ACCESS_KEY_ID",
        )


# --- deploy --------------------------------------------------------------------------------------


def deploy() -> None:
    config = Config()
    first = not config.saved.get("stack_name")
    chosen = answers(config)
    stack, region, parameters = chosen["stack_name"], chosen["region"], chosen["parameters"]
    arch = parameters["Architecture"]
    pairs = overrides_text(parameters)
    log(
        "deploy",
        f"{'first deployment of' if first else 'deploying'} config env {config.env}: stack "
        f"{stack} in {region}, {arch}, administrator {parameters['AdminUsername']} "
        f"<{parameters['AdminEmail']}>, site {parameters['SiteUrl']}",
    )
    # An s3_bucket saved by an older guided run stays; sam refuses it together with --resolve-s3.
    bucket = config.saved.get("s3_bucket")
    s3 = ["--s3-bucket", bucket] if bucket else ["--resolve-s3"]
    prefix = config.saved.get("s3_prefix") or stack
    confirm = bool(config.saved.get("confirm_changeset", False))
    saved = {
        "stack_name": stack,
        "region": region,
        "s3_prefix": prefix,
        "capabilities": CAPABILITIES,
        "confirm_changeset": confirm,
        "fail_on_empty_changeset": False,
        "parameter_overrides": " ".join(pairs),
    }
    if not bucket:
        saved["resolve_s3"] = True
    before = config.saved.get("stack_name"), config.saved.get("region")
    if not first and before != (stack, region):
        log("deploy", f"note: config env {config.env} was stack {before[0]} in {before[1]}")
    if DRY_RUN:
        log("deploy", f"dry run: {config.where()} is not saved")
    else:
        config.save(saved)
        log("deploy", f"saved to {config.where()}")
        credentials_present()
        rust_target(arch)
    log("deploy", f"sam build for {arch} (release builds, one function at a time)")
    run("deploy", [sam(), "build", *config.args(), "--parameter-overrides", f"Architecture={arch}"])
    run(
        "deploy",
        [
            sam(),
            "deploy",
            *config.args(),
            "--stack-name",
            stack,
            "--region",
            region,
            "--capabilities",
            CAPABILITIES,
            *s3,
            "--s3-prefix",
            prefix,
            "--confirm-changeset" if confirm else "--no-confirm-changeset",
            "--no-fail-on-empty-changeset",
            "--parameter-overrides",
            *pairs,
        ],
    )
    if not DRY_RUN:
        suffix = "" if config.env == "default" else f" CONFIG_ENV={config.env}"
        log("deploy", f"deployed; smoke-test it: make smoke{suffix}")
