"""The result cache in `.ctxlint_cache/`: a warm run serves each file's findings from it, and
anything a result depends on (the file, a file its front-end read, the settings, the rules)
makes ctxlint lint that file again. Whether a run used the cache is observed, not timed: the
tests plant a recognisable message in a cached entry and look for it in the output."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import CLOCK_MESSAGE, CLOCK_TEMPLATE, Project

PLANTED = "served from the cache"
SKPROMPT = ("<message role=\"system\">\nYou are a friendly travel assistant for Contoso Travel.\n"
            "Never book anything without the user's explicit confirmation.\n</message>\n"
            "<message role=\"user\">{{$input}}</message>\n")
CONFIG_400 = '{"schema": 1, "execution_settings": {"default": {"max_tokens": 400}}}\n'
CONFIG_NONE = '{"schema": 1, "execution_settings": {"default": {"temperature": 0.5}}}\n'


def _tables(root: Path) -> list[Path]:
    return sorted((root / ".ctxlint_cache").glob("*/*.json"))


def _plant(root: Path) -> int:
    """Replace the message of every cached finding; return how many were changed."""
    changed = 0
    for table in _tables(root):
        data = json.loads(table.read_text(encoding="utf-8"))
        for entry in data.values():
            for finding in entry["findings"]:
                finding["message"] = PLANTED
                changed += 1
        table.write_text(json.dumps(data), encoding="utf-8")
    return changed


def test_warm_runs_are_served_from_the_cache_until_an_input_changes(project):
    project.write({"a.j2": CLOCK_TEMPLATE, "ctxlint.toml": 'model = "gpt-4o"\n'})
    cold = project.run("check")
    assert cold.located == ["a.j2:1:15: CTX101"] and cold.lines[0] == f"a.j2:1:15: CTX101 {CLOCK_MESSAGE}"
    assert cold.lines[-1] == "Found 1 finding (1 error) in 1 file."
    cache = project.root / ".ctxlint_cache"
    assert (cache / "CACHEDIR.TAG").read_text(encoding="utf-8").startswith("Signature: 8a477f597d28d172789f06886806bc55\n")
    assert (cache / ".gitignore").read_text(encoding="utf-8").splitlines()[-1] == "*"
    assert _plant(project.root) == 1

    warm, other_rules, no_cache = project.run_many([("check",), ("check", "--select", "CTX1"), ("check", "--no-cache")])
    assert warm.lines[0] == f"a.j2:1:15: CTX101 {PLANTED}"  # nothing was linted again
    assert other_rules.lines[0] == no_cache.lines[0] == cold.lines[0]  # other settings, or no cache

    # The settings changed: every file of that configuration is linted again.
    project.write({"ctxlint.toml": 'model = "gpt-4o"\n[rules.CTX101]\nseverity = "error"\n'})
    assert project.run("check").lines[0] == cold.lines[0]
    _plant(project.root)
    # The file changed (even by a byte of whitespace): linted again.
    project.write({"a.j2": CLOCK_TEMPLATE + "\n"})
    assert project.run("check").lines[0] == cold.lines[0]


def test_a_file_the_front_end_read_is_part_of_the_key(project):
    project.write({"Plugin/Chat/skprompt.txt": SKPROMPT, "Plugin/Chat/config.json": CONFIG_400})
    assert project.run("check").lines == ["All checks passed (2 files checked)."]
    # config.json no longer sets max_tokens: skprompt.txt, unchanged itself, now has a finding.
    project.write({"Plugin/Chat/config.json": CONFIG_NONE})
    after = project.run("check")
    assert after.located == ["Plugin/Chat/skprompt.txt:1:1: CTX201"]
    # And a config.json that did not exist and then appears: only skprompt.txt's lint reads it
    # (config.json linted on its own reports nothing), so the finding proves it was linted again.
    project.write({"Other/Fn/skprompt.txt": SKPROMPT})
    assert "Other/Fn" not in project.run("check").stdout
    project.write({"Other/Fn/config.json": CONFIG_400.replace("400", "5")})
    assert "Other/Fn/config.json:1:50: CTX202 `max_tokens: 5` leaves too little room" in project.run("check").stdout


def test_a_crafted_or_broken_cache_is_ignored(project):
    project.write({"a.j2": CLOCK_TEMPLATE})
    cold = project.run("check")
    for table in _tables(project.root):
        data = json.loads(table.read_text(encoding="utf-8"))
        for entry in data.values():  # a class outside the model must never be built
            entry["findings"] = [{"$class": "Popen", "args": ["touch", "pwned"]}]
        table.write_text(json.dumps(data), encoding="utf-8")
    crafted = project.run("check")
    assert crafted.stdout == cold.stdout and not (project.root / "pwned").exists()
    for table in _tables(project.root):
        table.write_text("{not json", encoding="utf-8")
    assert project.run("check").stdout == cold.stdout


def test_cache_location_and_no_cache(tmp_path):
    project = Project(tmp_path / "project")
    project.write({"a.j2": CLOCK_TEMPLATE})
    elsewhere = tmp_path / "cache-here"
    project.run("check", env={"CTXLINT_CACHE_DIR": str(elsewhere)})
    assert (elsewhere / "CACHEDIR.TAG").is_file() and not (project.root / ".ctxlint_cache").exists()
    project.run("check", "--no-cache")
    assert not (project.root / ".ctxlint_cache").exists()


def test_the_cache_lives_at_the_project_root_whatever_the_working_directory(project):
    """The nearest directory with a configuration or a .git holds .ctxlint_cache/, so runs from
    any subfolder share one cache instead of leaving one in each (issue 25)."""
    project.write({"app/prompts/a.j2": CLOCK_TEMPLATE, "pyproject.toml": '[tool.ctxlint]\nmodel = "gpt-4o"\n'})
    (project.root / "lib/.git").mkdir(parents=True)
    project.write({"lib/prompts/b.j2": CLOCK_TEMPLATE})
    project.run("check", cwd="app/prompts")
    project.run("check", ".", cwd="lib/prompts")
    caches = sorted(p.relative_to(project.root).as_posix() for p in project.root.rglob(".ctxlint_cache"))
    assert caches == [".ctxlint_cache", "lib/.ctxlint_cache"]
    cold = project.run("check", cwd="app")
    assert _plant(project.root) == 2
    warm = project.run("check", cwd="app")
    assert warm.lines[0] == f"prompts/a.j2:1:15: CTX101 {PLANTED}", cold.stdout


def test_imported_modules_and_prompty_file_references_are_part_of_the_key(project):
    """The other front-ends that read beyond the file: a Python module's imported constants, a
    Prompty file's ``${file:...}``. Each edit below changes only the other file."""
    project.write({
        "limits.py": "ANSWER_TOKENS = 400\n",
        "service.py": (
            "from openai import OpenAI\nfrom limits import ANSWER_TOKENS\n\nclient = OpenAI()\n"
            "SYSTEM = \"You are the returns assistant for Northwind. Hand disputes to a human agent.\"\n\n\n"
            "def answer(question):\n"
            "    return client.chat.completions.create(\n"
            "        model=\"gpt-4o\", max_completion_tokens=ANSWER_TOKENS,\n"
            "        messages=[{\"role\": \"system\", \"content\": SYSTEM},\n"
            "                  {\"role\": \"user\", \"content\": question}],\n"
            "    )\n\n\nif __name__ == \"__main__\":\n    print(answer(input()))\n"
        ),
        "chat.prompty": ("---\nmodel:\n  api: chat\n  parameters:\n    max_tokens: 400\n"
                         "    tools: ${file:tools/search.json}\n---\nuser:\n{{question}}\n"),
    })
    cold = project.run("check")
    assert cold.located == ["chat.prompty:6:5: CTX001"]
    assert "cannot read `${file:tools/search.json}`" in cold.lines[0]

    project.write({
        "limits.py": "ANSWER_TOKENS = 5\n",
        "tools/search.json": ('[{"type": "function", "function": {"name": "search", "description": "Search the '
                              'help centre.", "parameters": {"type": "object", "properties": {"q": '
                              '{"type": "string"}}}}}]'),
    })
    warm = project.run("check")
    assert warm.located == ["service.py:10:25: CTX202"]


def test_the_framework_catalogue_is_part_of_the_code_version(monkeypatch, tmp_path):
    """The catalogue's sources decide what a finding says: a change to it (a new source of
    third-party content) is a new version of ctxlint, whose results are not served from the cache."""
    import ctxlint.frameworks
    from ctxlint.cache import code_version

    catalogue = tmp_path / "frameworks"
    catalogue.mkdir()
    (catalogue / "io.yaml").write_text("framework: io\n", encoding="utf-8")
    monkeypatch.setattr(ctxlint.frameworks, "builtin_frameworks_dir", lambda: catalogue)
    before = code_version()
    (catalogue / "io.yaml").write_text("framework: io\nllm: false\n", encoding="utf-8")
    assert code_version() != before
