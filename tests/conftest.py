"""Shared helpers for the command-line tests: a project in a temporary directory and a way to
run ``ctxlint`` on it as a subprocess, exactly as a user or CI would."""

from __future__ import annotations

import functools
import os
import re
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest

# A house style (106 tokens) a test appends to its static instructions so that a clock before them
# loses more than one step of a provider's cache (CTX101's `min_tokens`, 128).
HOUSE_STYLE = (
    " Keep a plain and friendly tone, use the customer's name once, never guess at facts the records do not show, "
    "say so plainly when you do not know, point to the help centre article on the topic when there is one, and "
    "close by asking whether anything else needs attention today. Write dates as they appear in the records, "
    "spell out abbreviations the first time you use them, and keep lists to five items; when a request falls "
    "outside these rules, say which rule stops you and offer the nearest thing you can do."
)
# Static instructions long enough (172 tokens) for a clock or id before them to be worth a finding:
# CTX101 reports a loss under its `min_tokens` (128) at low confidence only, CTX102 under 50.
SUPPORT_RULES = (
    "You are the support assistant for Northwind. Answer questions about orders, returns and delivery times, "
    "and hand anything else to a human agent.\n"
    "Check the order number before you discuss an order. Offer a refund only within thirty days of delivery, "
    "never reveal card numbers or internal notes, and answer in three short paragraphs at most." + HOUSE_STYLE + "\n"
)
# A template with a clock value before static text: CTX101 (an error) at 1:15.
CLOCK_TEMPLATE = "Current time: {{ now() }}\n" + SUPPORT_RULES
CLOCK_MESSAGE = (
    "`now()` changes on every call; the 172 static tokens after it are sent uncached each time. "
    "Move it after the last static instruction, or into the latest user message."
)
# A Prompty file without an output limit: CTX201 (a warning) at 3:1, on `model:`.
NO_RESERVE_PROMPTY = "---\nname: Support\nmodel:\n  api: chat\n---\nsystem:\nYou are the support assistant.\n"
NO_RESERVE_MESSAGE = (
    "No output limit is set, so the answer may take whatever the window leaves, or be cut off "
    "when a long prompt leaves nothing. Set `model.parameters.max_tokens` (Prompty 2: "
    "`model.options.maxOutputTokens`) to the longest answer you expect."
)
# A template with nothing to report.
CLEAN_TEMPLATE = "You are the support assistant for Northwind.\nQuestion: {{ question }}\n"


# The first line of a finding in the text report: ``path:line:col: CODE`` (``path:cell N:…`` in
# a notebook).
FINDING_LINE = re.compile(r"^\S+:(cell \d+:)?\d+:\d+: [A-Z]+\d+ ")


@dataclass
class Run:
    code: int
    stdout: str
    stderr: str

    @property
    def lines(self) -> list[str]:
        return self.stdout.splitlines()

    @property
    def located(self) -> list[str]:
        """The findings' first lines cut to ``path:line:col: CODE`` (source lines, wrapped
        messages and the summary dropped)."""
        return [" ".join(line.split(" ", 2)[:2]) for line in self.lines if FINDING_LINE.match(line)]

    @property
    def err_lines(self) -> list[str]:
        return self.stderr.splitlines()

    def assert_no_crash(self, args=()) -> None:
        # A traceback is a bug, whatever the exit code (DESIGN: "Bad input gets a clear
        # finding, nothing else"); so is an internal error.
        assert "Traceback" not in self.stderr, (args, self.stderr)
        assert "internal error" not in self.stderr, (args, self.stderr)


class Project:
    """A directory of files plus ``run(*args)``, which runs ``ctxlint`` inside it.

    The findings most CLI tests exercise the machinery with (a clock before instructions, an
    unlabelled page) come from preview rules, so ``check`` runs with ``--preview`` unless a test
    sets ``preview = False`` to see the default selection as a user would.
    """

    def __init__(self, root: Path, preview: bool = True):
        self.root = root
        self.preview = preview

    def write(self, files: dict[str, str | bytes]) -> Project:
        for rel, content in files.items():
            path = self.root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                path.write_bytes(content)
            else:
                path.write_text(content, encoding="utf-8")
        return self

    def run(self, *args: str, cwd: str | Path | None = None, stdin: str | None = None,
            env: dict[str, str] | None = None) -> Run:
        """Run ``ctxlint ARGS`` in the project (or in ``cwd`` below it), with ``stdin`` as its
        standard input and ``env`` added to its environment."""
        return self.run_many([args], cwd=cwd, stdin=stdin, env=env)[0]

    def run_many(self, arg_lists: list[tuple[str, ...] | list[str]], cwd: str | Path | None = None,
                 strict: bool = True, stdin: str | None = None, env: dict[str, str] | None = None) -> list[Run]:
        """Several independent invocations at once (they only read the project): one result
        per argument list, in order. Start-up dominates a run, so this keeps the suite fast.
        ``strict=False`` leaves the traceback check to the caller (see :meth:`Run.assert_no_crash`)."""
        environment = {**os.environ, "PYTHONIOENCODING": "utf-8", **(env or {})}
        environment.pop("CTXLINT_DEBUG", None)
        for name in ("NO_COLOR", "FORCE_COLOR"):  # colour only when a test asks for it
            if name not in (env or {}):
                environment.pop(name, None)
        if self.preview:
            arg_lists = [[*args[:1], "--preview", *args[1:]] if args[:1] in (("check",), ["check"]) else args
                         for args in arg_lists]
        procs = [
            subprocess.Popen(
                [sys.executable, "-m", "ctxlint.cli", *args],
                cwd=self.root / cwd if cwd is not None else self.root,
                stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                encoding="utf-8",
                env=environment,
            )
            for args in arg_lists
        ]
        runs = []
        for args, proc in zip(arg_lists, procs):
            stdout, stderr = proc.communicate(input=stdin, timeout=60)
            runs.append(Run(proc.returncode, stdout, stderr))
        if strict:
            for args, run in zip(arg_lists, runs):
                run.assert_no_crash(args)
        return runs


# Seconds to wait for the package registry before the tests that install from it are skipped.
REGISTRY_TIMEOUT = 3


def package_index() -> str:
    """The index pip installs from: PIP_INDEX_URL, else pip's configured index-url, else PyPI."""
    url = os.environ.get("PIP_INDEX_URL")
    if not url:
        listed = subprocess.run([sys.executable, "-m", "pip", "config", "list"], capture_output=True, text=True,
                                timeout=60, check=False).stdout
        found = re.search(r"^[^\s=]*\.index-url='([^']+)'", listed, re.MULTILINE)
        url = found.group(1) if found else "https://pypi.org/simple/"
    return url.split()[0]


@functools.cache
def registry_unreachable() -> str | None:
    """Why the package registry cannot be reached (None when it can): asked once, and given
    REGISTRY_TIMEOUT seconds in all, so a suite without network skips the install tests instead of
    waiting on pip. The probe runs in a thread it does not wait for beyond that: a socket timeout
    bounds each step of a request, not the name lookup nor the sum of the steps."""
    index = package_index()
    if index.startswith("file:"):
        return None if Path(urllib.request.url2pathname(index[5:])).is_dir() else f"{index} does not exist"
    answer: list[str | None] = []

    def probe() -> None:
        try:
            urllib.request.urlopen(index.rstrip("/") + "/pip/", timeout=REGISTRY_TIMEOUT).close()
        except urllib.error.HTTPError as error:
            answer.append(None if error.code < 500 else f"answered {error.code}")
        except (OSError, ValueError) as error:
            answer.append(f"{getattr(error, 'reason', error)}")
        else:
            answer.append(None)

    thread = threading.Thread(target=probe, daemon=True)
    thread.start()
    thread.join(REGISTRY_TIMEOUT)
    if not answer:
        return f"{index} cannot be reached in {REGISTRY_TIMEOUT} s (no answer)"
    return None if answer[0] is None else f"{index} cannot be reached in {REGISTRY_TIMEOUT} s ({answer[0]})"


@pytest.fixture
def package_registry() -> None:
    """For tests that install packages with pip: skip them when the registry cannot be reached."""
    reason = registry_unreachable()
    if reason is not None:
        pytest.skip(f"needs the package registry: {reason}")


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: needs network or a package install; deselect with -m 'not slow'")


@pytest.fixture
def project(tmp_path: Path) -> Project:
    root = tmp_path / "project"
    root.mkdir()
    # ctxlint walks up from the linted path looking for configuration; a stray ctxlint.toml
    # or [tool.ctxlint] above the temporary directory would silently change every result.
    from ctxlint.config import find_config

    assert find_config(root) is None, f"a ctxlint config above {root} would leak into the tests"
    return Project(root)


# A team's rule pack holding one preview rule (a stricter copy of CTX101).
PREVIEW_RULE = """\
code: ACME101
name: acme-clock
family: acme
severity: warning
check: volatile_in_prefix
preview: true
precision: "60% (3 of 5 judged)"
options:
  calls: [now]
  names: []
  filters: []
  advice: Move it down.
  min_tokens: 0
  per_call: []
  replayed: []
summary: A clock value before static text (a team's stricter copy).
docs:
  what: Reports clock values.
  why: Caching.
  example: "{{ now() }}"
  instead: "..."
  options: "calls: clock calls"
examples: []
"""
