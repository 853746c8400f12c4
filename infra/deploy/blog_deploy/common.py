"""The repository root, DRY_RUN, how a run stops and logs, and running programs (sam)."""

from __future__ import annotations

import os
import shlex
import subprocess
from pathlib import Path
from typing import List

ROOT = Path(__file__).resolve().parents[3]
DRY_RUN = os.environ.get("DRY_RUN", "0") == "1"


class Stop(Exception):
    """Ends the run with `message` on stderr and exit status `code`."""

    def __init__(self, code: int, message: str):
        super().__init__(message)
        self.code = code


def log(step: str, message: str) -> None:
    print(f"[{step}] {message}", flush=True)


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
