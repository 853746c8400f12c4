"""The deployed stack, looked up in CloudFormation: `smoke` and `destroy`."""

from __future__ import annotations

import os
import shlex
import sys
from typing import Dict, List, Optional

from botocore.exceptions import ClientError

from .answers import STACK, default_region
from .common import DRY_RUN, ROOT, Stop, log, run, sam
from .samconfig import Config

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
