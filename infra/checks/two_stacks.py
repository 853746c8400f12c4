"""Two stacks of template.yaml (dev and prod) can share an account and region.

The template is transformed by AWS SAM's own translator (offline, as `sam validate` does) into
the CloudFormation resources a deployment creates, the SAM-generated ones included (roles,
permissions, the scheduler's schedule). Every property that gives a resource a physical name
unique per account and region is rendered for two stack names; a name both stacks would use
fails the check. Runs with the SAM CLI's interpreter: `.tools/sam/bin/python`.
"""

import os
import sys
from pathlib import Path

from samcli.yamlhelper import yaml_parse
from samtranslator.translator.transform import transform

ROOT = Path(__file__).resolve().parents[2]

# Properties that name a resource uniquely within an account and region.
NAMES = {
    "AWS::Lambda::Function": "FunctionName",
    "AWS::IAM::Role": "RoleName",
    "AWS::DynamoDB::Table": "TableName",
    "AWS::S3::Bucket": "BucketName",
    "AWS::SQS::Queue": "QueueName",
    "AWS::SNS::Topic": "TopicName",
    "AWS::SecretsManager::Secret": "Name",
    "AWS::Logs::LogGroup": "LogGroupName",
    "AWS::CloudWatch::Alarm": "AlarmName",
    "AWS::CloudWatch::Dashboard": "DashboardName",
    "AWS::Scheduler::Schedule": "Name",
    "AWS::Logs::QueryDefinition": "Name",
    # Nested in the policy's configuration (a dotted path).
    "AWS::CloudFront::CachePolicy": "CachePolicyConfig.Name",
    "AWS::CloudFront::OriginRequestPolicy": "OriginRequestPolicyConfig.Name",
}


class NoManagedPolicies:
    """The template names no managed policy by name: nothing to look up (offline)."""

    def load(self):
        return {}


def render(value, stack, parameters):
    """A name as the stack `stack` would get it: pseudo parameters and parameters replaced,
    references to resources by the generated name `<stack>-<LogicalId>`."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and len(value) == 1:
        (function, argument), = value.items()
        if function == "Ref":
            if argument == "AWS::StackName":
                return stack
            if argument in parameters:
                return str(parameters[argument])
            return f"{stack}-{argument}"
        if function == "Fn::GetAtt":
            resource = argument[0] if isinstance(argument, list) else argument.split(".")[0]
            return f"{stack}-{resource}"
        if function == "Fn::Sub":
            text, variables = (argument, {}) if isinstance(argument, str) else argument
            out = text
            for name, sub in variables.items():
                out = out.replace("${" + name + "}", render(sub, stack, parameters))
            out = out.replace("${AWS::StackName}", stack)
            while "${" in out:
                start = out.index("${")
                end = out.index("}", start)
                name = out[start + 2:end].split(".")[0]
                replacement = render({"Ref": name}, stack, parameters)
                out = out[:start] + replacement + out[end + 1:]
            return out
        if function == "Fn::Join":
            separator, items = argument
            return separator.join(render(item, stack, parameters) for item in items)
    raise ValueError(f"cannot render the name {value!r}")


def names(template, stack):
    parameters = {name: spec.get("Default", "") for name, spec in template.get("Parameters", {}).items()}
    found = {}
    for logical_id, resource in template["Resources"].items():
        key = NAMES.get(resource["Type"])
        value = resource.get("Properties", {}) if key else None
        for part in key.split(".") if key else []:
            value = value.get(part) if isinstance(value, dict) else None
        if value is not None:
            found[(resource["Type"], render(value, stack, parameters))] = logical_id
    return found


def main():
    # The translator reads the region for its ARNs; no call is made.
    os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
    text = (ROOT / "template.yaml").read_text()
    rendered = {}
    for stack in ["blog-dev", "blog-prod"]:
        sam = yaml_parse(text)
        # As `sam deploy` packages it: each function's code uploaded to S3.
        for logical_id, resource in sam["Resources"].items():
            if resource["Type"] == "AWS::Serverless::Function":
                resource["Properties"]["CodeUri"] = f"s3://artifacts/{logical_id}.zip"
        cloudformation = transform(sam, {}, NoManagedPolicies())
        rendered[stack] = names(cloudformation, stack)
    shared = set(rendered["blog-dev"]) & set(rendered["blog-prod"])
    for kind, name in sorted(shared):
        print(f"[two-stacks] {rendered['blog-dev'][(kind, name)]} ({kind}) is named {name!r} in both stacks")
    named = len(rendered["blog-dev"])
    if shared:
        sys.exit(f"[two-stacks] {len(shared)} fixed names: two stacks cannot share an account and region")
    print(f"[two-stacks] {named} named resources, none the same in two stacks")


if __name__ == "__main__":
    main()
