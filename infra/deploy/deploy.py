"""`make deploy`, `make destroy` and `make smoke` (without URL): one config env of samconfig.toml.

Runs with the SAM CLI's interpreter, `.tools/sam/bin/python` (infra/deploy/deploy.sh starts it):
that venv has boto3 and the SAM CLI's own samconfig.toml reader and writer, so the file is read and
written exactly as `sam` reads and writes it.

    deploy.py deploy           sam build + sam deploy of the config env's stack
    deploy.py destroy          sam delete of it, then what it keeps and how to remove that
    deploy.py smoke CMD...     CMD (blog-smoke) against it: URL, administrator, actuator token

A config env (CONFIG_ENV, default `default`) is one stack: its `[<env>.deploy.parameters]` section
of samconfig.toml holds the stack name, the region and the template parameters, so a `dev` and a
`prod` stack deploy, smoke-test and delete apart.

No `sam deploy --guided`: its ~50 questions include nine whose default answer aborts (routes
without an authorizer: the functions check tokens themselves). `deploy` asks only what has no
sensible default, each answer given by an environment variable (make variable) when set, else the
saved one, else asked on the terminal, else its default; a required one missing without a
terminal stops the run (exit 2) naming its variable:

    CONFIG_ENV      the section of samconfig.toml                 [default]
    STACK_NAME      the CloudFormation stack                      [blog, blog-<config env>]
    REGION          its region                                    [the AWS CLI's]
    ADMIN_USERNAME  the administrator the stack creates           [admin]
    ADMIN_EMAIL     their e-mail address                          (required)
    SITE_URL        the public site the feeds and sitemaps link   (required: the template's
                    to                                            default is a placeholder)
    ARCH            arm64 or x86_64                               [the saved one, else arm64]
    PARAMS          other template parameters, "Name=Value ..."   (saved too)

The answers are saved to the config env's section (SAM's own writer, before the build: a failed
deployment keeps them) and `sam deploy` runs without a question: `--no-confirm-changeset` (the
change set is printed; `confirm_changeset = true` in the section makes sam ask before executing
it), `--no-fail-on-empty-changeset` (deploying an unchanged stack again succeeds). Both commands
get `--config-file` and `--config-env`, so whatever else the section holds (tags, say) applies.

SAMCONFIG names another samconfig.toml, SAM and RUSTUP other programs (the tests' stand-ins);
DRY_RUN=1 prints the commands instead of running them and saves nothing.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Callable, Dict, List, Optional, Tuple

from botocore.exceptions import BotoCoreError, ClientError
from samcli.cli.types import CfnParameterOverridesType
from samcli.lib.config.samconfig import SamConfig

ROOT = Path(__file__).resolve().parents[2]
DRY_RUN = os.environ.get("DRY_RUN", "0") == "1"
# The template's SAM transform expands each function's role (none has a fixed name): CAPABILITY_IAM.
# sam deploy creates a change set, so the AWS::Serverless transform needs no CAPABILITY_AUTO_EXPAND
# (the template has no other macro and no nested application).
CAPABILITIES = "CAPABILITY_IAM"
# The template parameters `deploy` asks for, with their variables (the others keep the saved value,
# else PARAMS's, else the template's default).
ASKED = {
    "Architecture": "ARCH",
    "AdminUsername": "ADMIN_USERNAME",
    "AdminEmail": "ADMIN_EMAIL",
    "SiteUrl": "SITE_URL",
}
# template.yaml's placeholder default of SiteUrl.
PLACEHOLDER_SITE = "https://blog.example.com"


class Stop(Exception):
    """Ends the run with `message` on stderr and exit status `code`."""

    def __init__(self, code: int, message: str):
        super().__init__(message)
        self.code = code


def log(step: str, message: str) -> None:
    print(f"[{step}] {message}", flush=True)


# --- samconfig.toml ------------------------------------------------------------------------------


class Config:
    """The config env's `deploy` section of samconfig.toml (with its `global` one, as sam reads
    it)."""

    def __init__(self) -> None:
        self.env = os.environ.get("CONFIG_ENV", "").strip() or "default"
        if not re.fullmatch(r"[A-Za-z0-9_-]+", self.env):
            raise Stop(2, f"CONFIG_ENV={self.env!r}: letters, digits, '-' and '_' only")
        self.path = Path(os.environ.get("SAMCONFIG") or ROOT / "samconfig.toml").absolute()
        self.samconfig = SamConfig(str(self.path.parent), self.path.name)
        self.saved = dict(self.samconfig.get_all(["deploy"], "parameters", self.env))

    def where(self) -> str:
        return f"{self.path.name} [{self.env}.deploy.parameters]"

    def overrides(self) -> Dict[str, str]:
        """The saved template parameters, parsed as sam parses them."""
        return parse_overrides(self.saved.get("parameter_overrides"), self.where())

    def save(self, values: Dict[str, object]) -> None:
        for key, value in values.items():
            self.samconfig.put(["deploy"], "parameters", key, value, env=self.env)
        self.samconfig.flush()

    def args(self) -> List[str]:
        return ["--config-file", str(self.path), "--config-env", self.env]


def parse_overrides(value: object, source: str) -> Dict[str, str]:
    if value in (None, "", [], ()):
        return {}
    try:
        return dict(CfnParameterOverridesType().convert(value, None, None))
    except Exception as error:  # click's BadParameter, whatever its message
        raise Stop(2, f"the parameters of {source} do not parse: {error}") from error


def override(key: str, value: str) -> str:
    """`key=value` as sam's --parameter-overrides reads it (quoted when it must be)."""
    if value == "" or re.search(r"[\s\"']", value):
        return f'{key}="{value.replace(chr(34), chr(92) + chr(34))}"'
    return f"{key}={value}"


def overrides_text(parameters: Dict[str, str]) -> List[str]:
    pairs = [override(key, value) for key, value in parameters.items()]
    if parse_overrides(pairs, "the parameters") != parameters:
        raise Stop(2, f"a parameter value sam cannot read back: {' '.join(pairs)}")
    return pairs


# --- The answers -------------------------------------------------------------------------------


def interactive() -> bool:
    return sys.stdin.isatty()


class Questions:
    """The answers of one run. Without a terminal every missing or malformed answer is collected,
    so one message names every variable to set."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.problems: List[Tuple[str, str]] = []

    def ask(
        self,
        variable: str,
        label: str,
        saved: Optional[str],
        default: Optional[str],
        check: Callable[[str], Optional[str]],
        asked: bool = True,
    ) -> str:
        """$variable, else the saved answer, else the terminal's (when `asked`), else default."""
        given = os.environ.get(variable, "").strip()
        if given:
            value, source = given, variable
        elif saved:
            value, source = saved, f"saved in {self.config.where()}"
        elif asked and interactive():
            return prompt(label, default, check)
        elif default:
            value, source = default, "the default"
        else:
            self.problems.append((variable, f"the {label}, required (no terminal to ask on)"))
            return ""
        problem = check(value)
        if problem:
            self.problems.append((variable, f"{value!r} ({source}) is {problem}"))
        return value

    def check(self) -> None:
        if self.problems:
            variables = list(dict.fromkeys(variable for variable, _ in self.problems))
            env = "" if self.config.env == "default" else f" CONFIG_ENV={self.config.env}"
            example = " ".join(f"{variable}=..." for variable in variables)
            raise Stop(
                2,
                f"set {', '.join(variables)} (make deploy{env} {example}):\n"
                + "\n".join(f"  {variable}: {problem}" for variable, problem in self.problems),
            )


def prompt(label: str, default: Optional[str], check: Callable[[str], Optional[str]]) -> str:
    while True:
        shown_default = f" [{default}]" if default else ""
        sys.stderr.write(f"{label[0].upper()}{label[1:]}{shown_default}: ")
        sys.stderr.flush()
        line = sys.stdin.readline()
        if not line:
            raise Stop(2, f"the {label}: no answer (end of input)")
        value = line.strip() or (default or "")
        if not value:
            sys.stderr.write("  an answer is required\n")
            continue
        problem = check(value)
        if problem is None:
            return value
        sys.stderr.write(f"  {problem}\n")


def pattern(regex: str, problem: str) -> Callable[[str], Optional[str]]:
    return lambda value: None if re.fullmatch(regex, value) else problem


# CloudFormation's stack names; AWS region names; the template's AllowedPatterns.
STACK = pattern(r"[A-Za-z][A-Za-z0-9-]{0,127}", "not a stack name (a letter, letters, digits, -)")
REGION = pattern(r"[a-z]{2,}(-[a-z]+)+-[0-9]+", "not a region name (e.g. eu-west-1)")
USERNAME = pattern(r"[A-Za-z0-9_]{3,20}", "not a user name (3-20 letters, digits and underscores)")
EMAIL = pattern(r"[^@\s]+@[^@\s]+\.[^@\s]+", "not an e-mail address (name@example.org)")
URL = pattern(
    r"https?://[^/?#\s]+(/[^?#\s]*)?",
    "not an absolute http(s) URL without query or fragment (https://blog.example.org)",
)
ARCHITECTURE = pattern(r"arm64|x86_64", "neither arm64 nor x86_64")


def placeholder(site: str) -> bool:
    return site.rstrip("/") == PLACEHOLDER_SITE


def site_url(value: str) -> Optional[str]:
    if placeholder(value):
        return "template.yaml's placeholder (the feeds and the sitemap would link there)"
    return URL(value)


def default_region() -> Optional[str]:
    """The region the AWS CLI would use: AWS_REGION, AWS_DEFAULT_REGION, the profile's."""
    import boto3

    return os.environ.get("AWS_REGION") or boto3.session.Session().region_name


def answers(config: Config) -> Dict[str, object]:
    saved = config.overrides()
    questions = Questions(config)
    ask = questions.ask
    stack = ask(
        "STACK_NAME",
        "stack name",
        config.saved.get("stack_name"),
        "blog" if config.env == "default" else f"blog-{config.env}",
        STACK,
    )
    region = ask("REGION", "AWS region", config.saved.get("region"), default_region(), REGION)
    username = ask(
        "ADMIN_USERNAME", "administrator's user name", saved.get("AdminUsername"), "admin", USERNAME
    )
    email = ask(
        "ADMIN_EMAIL", "administrator's e-mail address", saved.get("AdminEmail"), None, EMAIL
    )
    # The template's placeholder, which a guided run offers as the default, is no answer.
    saved_site = saved.get("SiteUrl")
    if saved_site and placeholder(saved_site):
        saved_site = None
    site = ask("SITE_URL", "public site's URL (the feeds link there)", saved_site, None, site_url)
    arch = ask("ARCH", "architecture", saved.get("Architecture"), "arm64", ARCHITECTURE, False)
    extra = parse_overrides(os.environ.get("PARAMS", "").strip(), "PARAMS")
    for name, variable in ASKED.items():
        if name in extra:
            questions.problems.append(("PARAMS", f"sets {name}: give it as {variable}"))
    questions.check()
    parameters = {**saved, **extra}
    parameters.update(
        {"Architecture": arch, "AdminUsername": username, "AdminEmail": email, "SiteUrl": site}
    )
    return {"stack_name": stack, "region": region, "parameters": parameters}


# --- Running programs --------------------------------------------------------------------------


def sam() -> str:
    return os.environ.get("SAM") or str(ROOT / ".tools/sam/bin/sam")


def shown(command: List[str]) -> str:
    return shlex.join(command).replace(f"{ROOT}/", "")


def run(step: str, command: List[str]) -> None:
    if DRY_RUN:
        print(shown(command), flush=True)
        return
    status = subprocess.run(command, cwd=ROOT).returncode
    if status != 0:
        raise Stop(status, f"{shown(command[:2])} failed (exit {status})")


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


# --- The deployed stack --------------------------------------------------------------------------


class Deployed:
    """The config env's stack (or STACK_NAME's, in REGION), as CloudFormation describes it."""

    def __init__(self, step: str) -> None:
        self.config = Config()
        given = os.environ.get("STACK_NAME", "").strip()
        self.from_config = given in ("", self.config.saved.get("stack_name"))
        self.name = given or self.config.saved.get("stack_name")
        if not self.name:
            raise Stop(
                2,
                f"no stack saved in {self.config.where()}: make deploy "
                f"CONFIG_ENV={self.config.env} deploys one (or give STACK_NAME and REGION)",
            )
        problem = STACK(self.name)
        if problem:
            raise Stop(2, f"STACK_NAME={self.name!r}: {problem}")
        self.region = (
            os.environ.get("REGION", "").strip()
            or (self.config.saved.get("region") if self.from_config else None)
            or default_region()
        )
        if not self.region:
            raise Stop(2, f"no region for stack {self.name}: set REGION")
        origin = f"config env {self.config.env}" if self.from_config else "STACK_NAME"
        log(step, f"stack {self.name} in {self.region} ({origin})")
        import boto3

        profile = self.config.saved.get("profile") if self.from_config else None
        self.session = boto3.session.Session(profile_name=profile, region_name=self.region)
        self.cloudformation = self.session.client("cloudformation")

    def describe(self) -> Optional[dict]:
        """The stack, None when there is none (or only a deleted one) of that name."""
        try:
            stacks = self.cloudformation.describe_stacks(StackName=self.name)["Stacks"]
        except ClientError as error:
            if "does not exist" in str(error):
                return None
            raise
        if not stacks or stacks[0]["StackStatus"] == "DELETE_COMPLETE":
            return None
        return stacks[0]

    def existing(self) -> dict:
        stack = self.describe()
        if stack is None:
            raise Stop(1, f"there is no stack {self.name} in {self.region}")
        return stack


def outputs(stack: dict) -> Dict[str, str]:
    return {each["OutputKey"]: each["OutputValue"] for each in stack.get("Outputs", [])}


# --- smoke ---------------------------------------------------------------------------------------


def smoke(command: List[str]) -> None:
    if not command:
        raise Stop(2, "usage: deploy.py smoke <blog-smoke command>")
    deployed = Deployed("smoke")
    stack = deployed.existing()
    found = outputs(stack)
    missing = [
        key
        for key in ("ApiUrl", "AdminPasswordSecretArn", "ActuatorTokenSecretArn")
        if key not in found
    ]
    if missing:
        raise Stop(
            1,
            f"stack {deployed.name} ({stack['StackStatus']}) has no output {', '.join(missing)}",
        )
    parameters = {
        each["ParameterKey"]: each.get("ParameterValue", "") for each in stack.get("Parameters", [])
    }
    username = parameters.get("AdminUsername", "")
    if not username:
        raise Stop(
            2,
            f"stack {deployed.name} has no administrator (AdminUsername is empty): make deploy "
            f"CONFIG_ENV={deployed.config.env} ADMIN_USERNAME=admin ADMIN_EMAIL=... creates one",
        )
    secrets = deployed.session.client("secretsmanager")

    def secret(output: str) -> str:
        return secrets.get_secret_value(SecretId=found[output])["SecretString"]

    env = dict(os.environ)
    env["BLOG_ADMIN_USERNAME"] = username
    env["BLOG_ADMIN_PASSWORD"] = secret("AdminPasswordSecretArn")
    env["BLOG_ACTUATOR_TOKEN"] = secret("ActuatorTokenSecretArn")
    log(
        "smoke",
        f"{found['ApiUrl']}: administrator {username} (AdminPasswordSecret), actuator token "
        "(ActuatorTokenSecret)",
    )
    sys.stdout.flush()
    os.chdir(ROOT)
    os.execvpe(command[0], [*command, "--url", found["ApiUrl"]], env)


# --- destroy -------------------------------------------------------------------------------------


def retained(deployed: Deployed) -> List[dict]:
    """The stack's resources its template keeps on deletion (DeletionPolicy: Retain)."""
    from samcli.yamlhelper import yaml_parse

    body = deployed.cloudformation.get_template(StackName=deployed.name, TemplateStage="Original")[
        "TemplateBody"
    ]
    template = body if isinstance(body, dict) else yaml_parse(body)
    kept = {
        logical
        for logical, resource in (template.get("Resources") or {}).items()
        if isinstance(resource, dict) and resource.get("DeletionPolicy") == "Retain"
    }
    resources = []
    paginator = deployed.cloudformation.get_paginator("list_stack_resources")
    for page in paginator.paginate(StackName=deployed.name):
        for each in page["StackResourceSummaries"]:
            if each["LogicalResourceId"] in kept and each.get("PhysicalResourceId"):
                resources.append(each)
    return resources


def removal(resource: dict, region: str) -> str:
    """The command that deletes a retained resource for good."""
    kind, name = resource["ResourceType"], resource["PhysicalResourceId"]
    quoted, at = shlex.quote(name), f"--region {region}"
    return {
        "AWS::DynamoDB::Table": f"aws dynamodb delete-table {at} --table-name {quoted}",
        "AWS::S3::Bucket": f"aws s3 rb {at} --force s3://{name}",
        "AWS::SecretsManager::Secret": (
            f"aws secretsmanager delete-secret {at} --secret-id {quoted} "
            "--force-delete-without-recovery"
        ),
        "AWS::Logs::LogGroup": f"aws logs delete-log-group {at} --log-group-name {quoted}",
    }.get(kind, f"(a {kind}: delete {name} in the console)")


def destroy() -> None:
    deployed = Deployed("destroy")
    stack = deployed.existing()
    kept = retained(deployed)
    log("destroy", f"sam delete asks before it deletes {deployed.name} ({stack['StackStatus']})")
    for resource in kept:
        log(
            "destroy",
            f"  kept: {resource['LogicalResourceId']} {resource['PhysicalResourceId']} "
            "(DeletionPolicy: Retain)",
        )
    command = [sam(), "delete", "--stack-name", deployed.name, "--region", deployed.region]
    if deployed.from_config:
        command += deployed.config.args()
    run("destroy", command)
    if DRY_RUN:
        return
    left = deployed.describe()
    if left is not None:
        log("destroy", f"stack {deployed.name} was not deleted ({left['StackStatus']})")
        return
    log("destroy", f"stack {deployed.name} deleted")
    if kept:
        log("destroy", "retained, with the data; to delete them for good as well:")
        for resource in kept:
            print(f"  {removal(resource, deployed.region)}", flush=True)


def main(argv: List[str]) -> int:
    step = argv[0] if argv else "deploy"
    try:
        if step == "deploy" and len(argv) <= 1:
            deploy()
        elif step == "destroy" and len(argv) == 1:
            destroy()
        elif step == "smoke":
            smoke(argv[1:])
        else:
            raise Stop(2, "usage: deploy.py [deploy | destroy | smoke <blog-smoke command>]")
    except Stop as stop:
        print(f"[{step}] error: {stop}", file=sys.stderr, flush=True)
        return stop.code
    except (BotoCoreError, ClientError) as error:
        print(f"[{step}] error: AWS: {error}", file=sys.stderr, flush=True)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
