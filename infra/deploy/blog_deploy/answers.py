"""The answers of `deploy`: each from its variable, the saved value, the terminal or a default."""

from __future__ import annotations

import os
import re
import sys
from typing import Callable, Dict, List, Optional, Tuple

from .common import Stop
from .samconfig import Config, parse_overrides

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
