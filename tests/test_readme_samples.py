"""The README's sample outputs are real runs, so they cannot drift (issue 25).

Every fenced block of the README whose first line is `$ ctxlint …` is run from the repository's
root, as a reader would run it, and compared with what it prints. A sample may leave parts out:
a line `…` stands for any number of lines, and a line ending in `…` for a line that begins with
what comes before it. Every other line must be printed as it stands, in that order.
"""

from __future__ import annotations

import functools
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

CHECKOUT = Path(__file__).resolve().parent.parent
README = (CHECKOUT / "README.md").read_text(encoding="utf-8")
SAMPLE = re.compile(r"^```\n\$ (ctxlint [^\n]*)\n(.*?)^```", re.DOTALL | re.MULTILINE)
SAMPLES = [(match.group(1), match.group(2).splitlines()) for match in SAMPLE.finditer(README)]


def matches(shown: list[str], printed: list[str]) -> bool:
    """Whether the sample ``shown`` is ``printed`` with parts left out as the module says."""

    @functools.cache
    def rest(i: int, j: int) -> bool:
        if i == len(shown):
            return j == len(printed)
        line = shown[i].rstrip()
        if line == "…":
            return any(rest(i + 1, k) for k in range(j, len(printed) + 1))
        if j == len(printed):
            return False
        actual = printed[j].rstrip()
        same = actual.startswith(line[:-1].rstrip()) if line.endswith("…") else actual == line
        return same and rest(i + 1, j + 1)

    return rest(0, 0)


def test_the_readme_has_samples_of_every_command():
    assert {command.split()[1] for command, _ in SAMPLES} >= {"check", "cost", "budget", "models"}


@pytest.mark.parametrize(("command", "shown"), SAMPLES, ids=[command for command, _ in SAMPLES])
def test_a_readme_sample_is_what_the_command_prints(command, shown, tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "FORCE_COLOR", "CTXLINT_DEBUG")}
    env.update(NO_COLOR="1", CTXLINT_CACHE_DIR=str(tmp_path / "cache"))
    run = subprocess.run([sys.executable, "-m", "ctxlint", *shlex.split(command)[1:]], cwd=CHECKOUT, env=env,
                         capture_output=True, text=True, check=False, timeout=600)
    assert "Traceback" not in run.stderr, run.stderr
    assert matches(shown, run.stdout.splitlines()), (
        f"The README's sample of `{command}` is not what it prints now; a run prints:\n{run.stdout}")


@pytest.mark.parametrize(("shown", "printed", "expected"), [
    (["a", "…", "d"], ["a", "b", "c", "d"], True),
    (["a", "b…", "c"], ["a", "bcd", "c"], True),
    (["a", "c"], ["a", "b", "c"], False),  # a line left out needs a `…`
    (["a", "…"], ["a", "b"], True),
    (["a"], ["a", "b"], False),  # so does the end
    (["x…"], ["a"], False),
])
def test_the_sample_matcher(shown, printed, expected):
    assert matches(shown, printed) is expected
