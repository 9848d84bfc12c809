"""Scripts a project ships: a console command under `scripts/` is code that runs for users, not a
one-off script, so its findings are reported like any other code's."""

from __future__ import annotations

from pathlib import Path

from ctxlint.packaging import shipped

UNCAPPED = '''\
import litellm


def main() -> None:
    history = open("/tmp/history.txt").read()[-2000:]
    answer = litellm.completion(model="gpt-4o-mini", messages=[{"role": "user", "content": "Fix: " + history}])
    print(answer.choices[0].message.content)
'''


def _shipped(tmp_path: Path, files: dict[str, str]) -> tuple[str, ...]:
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    shipped.cache_clear()
    return shipped(tmp_path)


def test_console_scripts_and_included_packages_of_each_packaging_file(tmp_path):
    found = _shipped(tmp_path, {
        "pyproject.toml": '[project.scripts]\nfix = "scripts.fix:main"\n[project.gui-scripts]\nview = "tools.view"\n'
                          '[tool.poetry.scripts]\nold = {callable = "scripts.old:run"}\n'
                          '[tool.poetry]\npackages = [{include = "helpers", from = "scripts"}, {include = "app"}]\n',
        "setup.cfg": "[options.entry_points]\nconsole_scripts =\n    tidy = demos.tidy:main\n",
        "package.json": '{"name": "x", "bin": {"ask": "./scripts/ask.js"}}',
    })
    assert found == (
        "/scripts/fix.py", "/scripts/fix", "/src/scripts/fix.py", "/src/scripts/fix",
        "/tools/view.py", "/tools/view", "/src/tools/view.py", "/src/tools/view",
        "/scripts/old.py", "/scripts/old", "/src/scripts/old.py", "/src/scripts/old",
        "/scripts/helpers", "/app",
        "/demos/tidy.py", "/demos/tidy", "/src/demos/tidy.py", "/src/demos/tidy",
        "/scripts/ask.js",
    )


def test_broken_or_absent_packaging_ships_nothing(tmp_path):
    assert _shipped(tmp_path, {}) == ()
    assert _shipped(tmp_path, {"pyproject.toml": "[project.scripts\nfix = ", "package.json": "{not json"}) == ()
    # a target that is not a module path, and a path out of the project, are not followed
    assert _shipped(tmp_path, {"pyproject.toml": '[project.scripts]\nx = "fix me:main"\n', "package.json": "{}",
                               "setup.cfg": "[metadata]\nname = x\n"}) == ()
    assert _shipped(tmp_path, {"package.json": '{"bin": "../outside.js"}', "pyproject.toml": ""}) == ()


def test_a_shipped_script_is_reported_and_a_one_off_script_beside_it_is_not(project):
    project.preview = False
    project.write({
        "pyproject.toml": '[project]\nname = "fixer"\n[project.scripts]\nfix = "scripts.fix:main"\n',
        "scripts/fix.py": UNCAPPED,
        "scripts/oneoff.py": UNCAPPED,
        # an example's own packaging makes it an installable example, still run by hand
        "examples/bot/pyproject.toml": '[project]\nname = "bot"\n[project.scripts]\nbot = "bot:main"\n',
        "examples/bot/bot.py": UNCAPPED,
    })
    run = project.run("check", "--select", "CTX201")
    assert (run.code, run.located) == (1, ["scripts/fix.py:6:14: CTX201"])
    low = project.run("check", "--select", "CTX201", "--confidence", "low", "--output-format", "json")
    assert '"scope": "example"' in low.stdout and low.stdout.count('"code": "CTX201"') == 3


SELF_TESTED = '''\
from openai import OpenAI

client = OpenAI()


def ask(question: str) -> str:
    reply = client.chat.completions.create(model="gpt-4o-mini", max_tokens=300,
                                           messages=[{"role": "user", "content": question}])
    return reply.choices[0].message.content


if __name__ == "__main__":
    reply = client.chat.completions.create(model="gpt-4o-mini", messages=[{"role": "user", "content": "Say hi"}])
    print(reply.choices[0].message.content, ask("Say hi again"))
'''


def test_a_package_modules_main_block_is_run_by_hand_and_a_scripts_is_not(project):
    # The module of a package (an `__init__.py` beside it) is what the application imports: its
    # `if __name__ == "__main__":` block is a self-test run by hand. A script's main block is the script.
    project.preview = False
    project.write({
        "app/__init__.py": "",
        "app/llm.py": SELF_TESTED,
        "run.py": SELF_TESTED,
    })
    run = project.run("check", "--select", "CTX201")
    assert (run.code, run.located) == (1, ["run.py:13:13: CTX201"])
    low = project.run("check", "--select", "CTX201", "--confidence", "low", "--output-format", "json")
    assert low.stdout.count('"code": "CTX201"') == 2 and 'block (line 12) of a module of a package' in low.stdout


def test_files_named_as_a_demo_a_benchmark_or_the_root_evaluation_script_are_run_by_hand(project):
    project.preview = False
    script = UNCAPPED + '\n\nif __name__ == "__main__":\n    main()\n'
    project.write({
        "backend/ingest-demo.py": script,
        "backend/evals/extraction_benchmark.py": script,
        "evaluate.py": script,
        "app/evaluate.py": script,  # an evaluation module of the application is its code
        "app/demonstrate.py": script,
    })
    run = project.run("check", "--select", "CTX201")
    assert sorted(run.located) == ["app/demonstrate.py:6:14: CTX201", "app/evaluate.py:6:14: CTX201"]
