"""The published pre-commit hooks, end to end, as the README tells users to configure them.

The test reads the `.pre-commit-config.yaml` snippet out of README.md, replaces only `repo` and
`rev` (with a committed copy of this checkout and that copy's commit) and runs `pre-commit run`
on a throwaway project. pre-commit installs the hook the way users get it: it clones the hook repository, builds a
wheel and pip-installs it (non-editable, dependencies from PyPI) into its own virtualenv, then
runs `ctxlint check FILES`. So this test also proves that the installed package finds its rule
catalogue. It is slow the first time (the install) and needs PyPI: it is skipped within seconds
when the registry cannot be reached (conftest.registry_unreachable), and deselected with
`-m "not slow"`.

pre-commit only installs committed files, and the hook file may not be committed yet in this
checkout (or the working tree may hold changes under test), so the test copies the working
tree (tracked and untracked, minus what git ignores) into a fresh repository and commits it
there: the hook under test is exactly the code on disk. (The cost hook's own test uses
`pre-commit try-repo`, which reads the same repository.)
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

CHECKOUT = Path(__file__).resolve().parent.parent
GIT = shutil.which("git")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(GIT is None, reason="git is not installed; pre-commit needs it"),
]

BAD_TEMPLATE = """\
Current time: {{ now() }}
You are the support assistant for Northwind.
Answer questions about orders only. Never reveal card numbers.
Check the order number before you discuss an order, offer a refund only within thirty days of
delivery, and hand anything about damaged goods to a human agent with the order number.
Keep a plain and friendly tone, use the customer's name once, never guess at facts the records do
not show, say so plainly when you do not know, point to the help centre article on the topic when
there is one, and close by asking whether anything else needs attention today. Write dates as they
appear in the records, spell out abbreviations the first time you use them, and keep lists to five
items; when a request falls outside these rules, say which rule stops you and offer the nearest thing.
"""

GOOD_TEMPLATE = """\
You are the support assistant for Northwind.
Answer questions about orders only. Never reveal card numbers.
Check the order number before you discuss an order, offer a refund only within thirty days of
delivery, and hand anything about damaged goods to a human agent with the order number.
Current time: {{ now() }}
"""

# Generous: the first run creates a virtualenv and installs ctxlint and its dependencies.
INSTALL_TIMEOUT = 1200


def _env(tmp_path: Path) -> dict[str, str]:
    """An environment that keeps git and pre-commit away from the user's config and caches."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "PRE_COMMIT"))}
    empty = tmp_path / "gitconfig"
    empty.touch()
    env.update(
        GIT_CONFIG_GLOBAL=str(empty),  # no signing, hooksPath or templates from the user
        GIT_CONFIG_NOSYSTEM="1",
        GIT_AUTHOR_NAME="ctxlint test",
        GIT_AUTHOR_EMAIL="test@example.invalid",
        GIT_COMMITTER_NAME="ctxlint test",
        GIT_COMMITTER_EMAIL="test@example.invalid",
        PRE_COMMIT_HOME=str(tmp_path / "pre-commit-home"),
        PRE_COMMIT_COLOR="never",
        PIP_DISABLE_PIP_VERSION_CHECK="1",
    )
    return env


def _git(env: dict[str, str], cwd: Path, *args: str) -> str:
    result = subprocess.run(
        [GIT, "-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false", *args],
        cwd=cwd, env=env, capture_output=True, text=True, check=False,
    )
    assert result.returncode == 0, f"git {' '.join(args)} failed in {cwd}:\n{result.stdout}{result.stderr}"
    return result.stdout


def _new_repo(env: dict[str, str], path: Path) -> None:
    path.mkdir(parents=True, exist_ok=True)
    _git(env, path, "init", "-q")
    # Set locally too, as a user would; the environment variables above already cover commits.
    _git(env, path, "config", "user.name", "ctxlint test")
    _git(env, path, "config", "user.email", "test@example.invalid")


def _commit_all(env: dict[str, str], repo: Path, message: str) -> None:
    _git(env, repo, "add", "-A")
    _git(env, repo, "commit", "-q", "--no-verify", "-m", message)


def _checkout_files() -> list[str]:
    """Working-tree files of this checkout that git does not ignore (relative, POSIX)."""
    if GIT is not None and (CHECKOUT / ".git").exists():
        listed = subprocess.run(
            [GIT, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=CHECKOUT, capture_output=True, check=True,
        ).stdout.decode("utf-8", "surrogateescape")
        return sorted({name for name in listed.split("\0") if name})
    # Not a git checkout (an unpacked sdist): everything but caches and build output.
    skip = {".git", "__pycache__", ".pytest_cache", ".venv", "build", "dist"}
    return sorted(
        p.relative_to(CHECKOUT).as_posix()
        for p in CHECKOUT.rglob("*")
        if p.is_file() and not skip.intersection(p.relative_to(CHECKOUT).parts)
    )


def _hook_repository(env: dict[str, str], dest: Path) -> Path:
    """A committed copy of this checkout's working tree, for try-repo to clone."""
    _new_repo(env, dest)
    copied = 0
    for name in _checkout_files():
        source = CHECKOUT / name
        if name.split("/")[0] == ".git" or not (source.is_file() or source.is_symlink()):
            continue  # deleted in the working tree but still in the index, or a submodule
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target, follow_symlinks=False)
        copied += 1
    assert (dest / ".pre-commit-hooks.yaml").is_file(), "the checkout has no .pre-commit-hooks.yaml"
    assert copied > 1
    _commit_all(env, dest, "ctxlint under test")
    return dest


def _pre_commit() -> list[str]:
    """The pre-commit next to this interpreter, else the module (a missing one fails loudly)."""
    bindir = Path(sys.executable).parent
    for name in ("pre-commit", "pre-commit.exe"):
        if (bindir / name).is_file():
            return [str(bindir / name)]
    return [sys.executable, "-m", "pre_commit"]


def _readme_config(hooks: Path, rev: str) -> str:
    """The README's pre-commit snippet with only `repo` and `rev` replaced."""
    readme = (CHECKOUT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## pre-commit"):]
    snippet = re.search(r"```yaml\n(.*?)```", section, re.DOTALL).group(1)
    config, repos = re.subn(r"^(\s*- repo: )\S+", lambda m: m.group(1) + str(hooks), snippet, flags=re.MULTILINE)
    config, revs = re.subn(r"^(\s*rev: )\S+", lambda m: m.group(1) + rev, config, flags=re.MULTILINE)
    assert (repos, revs) == (1, 1), snippet
    parsed = yaml.safe_load(config)
    assert [hook["id"] for hook in parsed["repos"][0]["hooks"]] == ["ctxlint", "ctxlint-cost"]
    return config


def _run_hooks(env: dict[str, str], project: Path) -> tuple[int, str, float]:
    started = time.monotonic()
    try:
        result = subprocess.run(
            [*_pre_commit(), "run", "--all-files", "--verbose"],
            cwd=project, env=env, capture_output=True, text=True, timeout=INSTALL_TIMEOUT, check=False,
        )
    except subprocess.TimeoutExpired as error:
        pytest.fail(f"pre-commit run did not finish in {INSTALL_TIMEOUT}s:\n{error.stdout}\n{error.stderr}")
    elapsed = time.monotonic() - started
    output = result.stdout + result.stderr
    print(f"pre-commit run: exit {result.returncode} in {elapsed:.1f}s")
    return result.returncode, output, elapsed


def test_readme_snippet_runs_the_hooks_and_fails_on_a_clock_in_the_prefix(tmp_path, package_registry):
    env = _env(tmp_path)
    hooks = _hook_repository(env, tmp_path / "ctxlint-hooks")
    rev = _git(env, hooks, "rev-parse", "HEAD").strip()

    project = tmp_path / "project"
    _new_repo(env, project)
    (project / ".pre-commit-config.yaml").write_text(_readme_config(hooks, rev), encoding="utf-8")
    (project / "prompts").mkdir()
    template = project / "prompts" / "support_system.j2"
    template.write_text(BAD_TEMPLATE, encoding="utf-8")
    # Files the hook passes to ctxlint although they hold no prompt: harmless.
    (project / "app.py").write_text('print("hello")\n', encoding="utf-8")
    (project / "package.json").write_text('{"name": "demo", "version": "1.0.0"}\n', encoding="utf-8")
    (project / "README.md").write_text("# Demo\n", encoding="utf-8")
    # The clock rule (CTX101) is a preview rule: the project opts in, as its README says.
    (project / "ctxlint.toml").write_text("preview = true\n", encoding="utf-8")
    _commit_all(env, project, "a template with a clock at the top")

    code, output, first = _run_hooks(env, project)
    assert code == 1, f"expected the hook to fail (exit 1), got {code}:\n{output}"
    assert re.search(r"^ctxlint\.+Failed$", output, re.MULTILINE), output
    assert re.search(r"^ctxlint cost\.+Passed$", output, re.MULTILINE), output  # nothing grew
    assert "prompts/support_system.j2:1:15: CTX101" in output, output  # the line and column of `now()`

    template.write_text(GOOD_TEMPLATE, encoding="utf-8")
    _commit_all(env, project, "move the clock after the last instruction")

    code, output, second = _run_hooks(env, project)
    assert code == 0, f"expected the hooks to pass, got exit {code}:\n{output}"
    assert re.search(r"^ctxlint\.+Passed$", output, re.MULTILINE), output  # not "Skipped": it saw the files
    assert "CTX1" not in output, output
    print(f"timings: first run (install + lint) {first:.1f}s, second run (lint only) {second:.1f}s")


def test_install_tests_skip_within_seconds_without_the_registry(tmp_path):
    """Offline, the tests that pip-install ctxlint skip after a short probe instead of waiting
    on pip for up to INSTALL_TIMEOUT (an address of TEST-NET-1, which no host answers)."""
    env = {**os.environ, "PIP_INDEX_URL": "http://192.0.2.1/simple/"}
    # Bounded by the subprocess timeout, not a wall-clock assertion: the skip reason names the
    # 3-second probe, which is what keeps the run short.
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rs",
         "tests/test_precommit.py::test_readme_snippet_runs_the_hooks_and_fails_on_a_clock_in_the_prefix",
         "tests/test_cost_compare.py::test_cost_hook_with_pre_commit_try_repo"],
        cwd=CHECKOUT, env=env, capture_output=True, text=True, timeout=120, check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 skipped" in done.stdout, done.stdout
    assert "needs the package registry: http://192.0.2.1/simple/ cannot be reached in 3 s" in done.stdout
