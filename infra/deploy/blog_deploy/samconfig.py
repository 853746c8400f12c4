"""The config env's section of samconfig.toml, read and written by the SAM CLI's own code."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Dict, List

from samcli.cli.types import CfnParameterOverridesType
from samcli.lib.config.samconfig import SamConfig

from .common import ROOT, Stop

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
