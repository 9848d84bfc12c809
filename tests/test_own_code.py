"""Our own code is checked as we ask users to check theirs: ruff and mypy over ctxlint/ pass, and
no module is over 600 lines, no class over 400.

Both tools come with the test extras and read their settings from pyproject.toml
([tool.ruff], [tool.mypy]); running them here puts them in every run of the suite, so
the README's test command and .ci/run check them too.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _run(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *command], cwd=ROOT, capture_output=True, text=True)


def test_ruff_finds_nothing_in_ctxlint():
    result = _run("ruff", "check", "--no-cache", "ctxlint")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "All checks passed!" in result.stdout


def test_mypy_finds_nothing_in_ctxlint():
    result = _run("mypy")  # packages = ["ctxlint"] in [tool.mypy]
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.startswith("Success: no issues found"), result.stdout


def _modules() -> dict[str, str]:
    package = ROOT / "ctxlint"
    return {p.relative_to(package).as_posix(): p.read_text(encoding="utf-8") for p in sorted(package.rglob("*.py"))}


def test_no_module_of_ctxlint_is_over_600_lines():
    # Each module holds one concern (issue 9); one that outgrows this bound holds two and is split,
    # as the Python front-end's flow.py and ordering.py and the TypeScript analyzer were.
    lengths = {name: len(text.splitlines()) for name, text in _modules().items()}
    assert len(lengths) > 100
    over = {name: n for name, n in lengths.items() if n > 600}
    assert over == {}


def test_no_class_of_ctxlint_is_over_400_lines():
    # A class that outgrows this bound holds parts that call each other; they become components,
    # each given the ones below it (as the TypeScript front-end's are).
    sizes = {f"{name}:{node.name}": node.end_lineno - node.lineno + 1
             for name, text in _modules().items() for node in ast.walk(ast.parse(text))
             if isinstance(node, ast.ClassDef) and node.end_lineno is not None}
    assert len(sizes) > 100
    over = {name: n for name, n in sizes.items() if n > 400}
    assert over == {}


def _imports() -> dict[str, set[str]]:
    """Each module of ctxlint -> the modules of ctxlint it imports, at the top or inside a
    function (a lazy import still ties the two), and the packages those run on the way; imports
    under ``if TYPE_CHECKING`` are left out."""
    package = ROOT / "ctxlint"
    names = {}
    for path in package.rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        names[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    graph: dict[str, set[str]] = {name: set() for name in names}
    for name, path in names.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        typing_only = {id(node) for block in ast.walk(tree) if isinstance(block, ast.If)
                       and "TYPE_CHECKING" in ast.unparse(block.test) for node in ast.walk(block)}
        for node in ast.walk(tree):
            if id(node) in typing_only or not isinstance(node, ast.Import | ast.ImportFrom):
                continue
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                assert node.level == 0, f"{name}: relative import"
                targets = [f"{node.module}.{alias.name}" for alias in node.names] + [node.module or ""]
            for target in targets:
                if target in names and target != name and not name.startswith(target + "."):
                    graph[name].add(target)
    # Importing a module runs its packages' __init__ first: `from ctxlint.tokens.encodings import x`
    # ties the importer to whatever ctxlint.tokens imports. A package whose __init__ imports nothing
    # of ctxlint ties nothing.
    for name in graph:
        for target in list(graph[name]):
            parts = target.split(".")
            graph[name].update(package for package in (".".join(parts[:i]) for i in range(2, len(parts)))
                               if graph.get(package) and not name.startswith(package + ".") and package != name)
    return graph


def test_no_import_cycle_in_ctxlint():
    # Layers import downwards only (issue 24): a cycle, lazy imports included, means two modules
    # that can only be understood together.
    graph = _imports()
    assert len(graph) > 100
    done: set[str] = set()
    cycles = []

    def visit(name: str, path: list[str]) -> None:
        if name in path:
            cycles.append(path[path.index(name):] + [name])
            return
        if name in done:
            return
        for target in sorted(graph[name]):
            visit(target, [*path, name])
        done.add(name)

    for name in sorted(graph):
        visit(name, [])
    assert cycles == []


# The layers of ctxlint, lowest first; a module belongs to the layer of the longest name that
# contains it. Each layer may import its own and those below it, and nothing above.
LAYERS = (
    # data and helpers every part uses: the model, numbers, YAML and TOML reading, what packaging
    # ships and which names the project writes, discovery and globs, results, git, token counting
    # and the model table, the providers' API shapes and the endpoints that cap an answer
    ("", "numbers", "model", "relocate", "markers", "yamlsafe", "tomlpos", "packaging", "references", "discover",
     "results", "git", "changes", "fix", "tokens", "providers", "endpoints"),
    # what is declared in files: the rule catalogue, the framework catalogue, budget declarations
    ("catalogue", "frameworks", "budget.policy", "budget.fixtures", "budget.operators"),
    # the front-ends and their registry of formats
    ("frontends",),
    # what follows from the formats: directives (comment syntax per format) and the configuration
    ("directives", "config"),
    # the shared passes over requests, with budget's segments, allocator and fixture simulation
    ("analysis", "budget.segments", "budget.allocator", "budget.simulate"),
    # the checks and what a check is given
    ("context", "checks"),
    # a run: the engine, its filters, the result cache, baselines, a project's linters
    ("engine", "filters", "cache", "baseline", "project"),
    # the commands' own work and the reporters
    ("cost", "budget", "report"),
    ("cli", "__main__"),
)


def _layer(module: str) -> int | None:
    name = module.removeprefix("ctxlint").removeprefix(".")
    found = [(len(prefix), index) for index, prefixes in enumerate(LAYERS) for prefix in prefixes
             if name == prefix or (prefix and name.startswith(prefix + "."))]
    return max(found)[1] if found else None


def test_imports_run_down_the_layers():
    # Issue 24: at most 5 imports (lazy ones included) from a lower layer to a higher one.
    graph = _imports()
    assert [name for name in sorted(graph) if _layer(name) is None] == []  # every module has a layer
    upward = sorted(f"{name} ({_layer(name)}) -> {target} ({_layer(target)})" for name, targets in graph.items()
                    for target in targets if _layer(target) > _layer(name))
    assert len(upward) <= 5, "\n".join(upward)
