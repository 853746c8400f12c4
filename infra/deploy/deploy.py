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

import sys
from typing import List

from botocore.exceptions import BotoCoreError, ClientError

# This file's directory is on sys.path (python puts a script's there): the package beside it.
from blog_deploy.common import Stop
from blog_deploy.deploy import deploy
from blog_deploy.stack import destroy, smoke


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
