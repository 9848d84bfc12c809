"""A directory listing whose order reaches a prompt through a template of the project's settings
(orderprompts.py, settingscuts.py): the module is read at all only because it renders such a
template and lists a directory (prefilter.py)."""

from __future__ import annotations

import ast

import pytest
from projects import check_json, write_package

from ctxlint.frontends.python.prefilter import interesting

HELP = '''\
import copy
from pathlib import Path

from jinja2 import Environment

from app.config import get_settings


class Help:
    def __init__(self, handler, question):
        self.handler = handler
        self.vars = {"question": question, "pages": ""}

    async def _predict(self, model):
        variables = copy.deepcopy(self.vars)
        user = Environment().from_string(get_settings().help.user).render(variables)
        return await self.handler.chat_completion(model=model, user=user)

    async def run(self, root):
        text = ""
        for page in LISTED:
            text += page.read_text()
        self.vars["pages"] = text
        return await self._predict("m")
'''


def test_a_module_that_renders_a_settings_template_and_lists_a_directory_is_read() -> None:
    assert interesting(ast.parse(HELP.replace("LISTED", 'Path(root).glob("*.md")')))


def test_a_module_that_renders_a_settings_template_and_lists_nothing_is_not() -> None:
    assert not interesting(ast.parse(HELP.replace("LISTED", "root.pages")))


def test_a_module_that_renders_a_settings_template_and_builds_a_set_is_read() -> None:
    assert interesting(ast.parse(HELP.replace("LISTED", "{p for p in root.pages}")))


def test_a_caller_with_a_positional_only_default_is_read(tmp_path):
    # `def section(items, sep="x", /)`: its default belongs to a positional-only parameter, which
    # the flag test of the callers once paired with the wrong names and stopped on.
    from projects import check_json

    (tmp_path / "agent.py").write_text('''\
from openai import OpenAI

client = OpenAI()


def names_text(names):
    return "\\n".join({str(n) for n in names})


def section(items, sep="x", /):
    text = names_text(items)
    return "Names:\\n" + text


def ask(items):
    prompt = section(items)
    return client.chat.completions.create(model="gpt-4o", max_tokens=100,
                                          messages=[{"role": "user", "content": prompt}])


print(ask(input().split()))
''')
    [found] = [f for f in check_json(tmp_path, "agent.py", "CTX104") if f["confidence"] != "low"]
    assert (found["line"], found["kind"]) == (7, "order-in-message")


WORKSPACE = '''\
import os


class Workspace:
    def __init__(self, root):
        self.root = root

    def read_all(self):
        found = []
        for folder, _dirs, names in os.walk(self.root):
            for name in names:
                with open(os.path.join(folder, name)) as handle:
                    found.append({"name": name, "text": handle.read()})
        SORTED
        return found

    def as_markdown(self):
        text = ""
        for item in self.read_all():
            text += f"### {item['name']}\\n{item['text']}\\n"
        return text
'''

REVIEWER = '''\
from openai import OpenAI

from workspace.files import Workspace

client = OpenAI()


def review(root, question):
    code = Workspace(root).as_markdown()
    USE
    return client.chat.completions.create(model="gpt-4o", max_tokens=300,
                                          messages=[{"role": "user", "content": prompt}])
'''


def _workspace_project(tmp_path, sort: str, use: str):
    (tmp_path / "workspace").mkdir()
    (tmp_path / "agents").mkdir()
    (tmp_path / "workspace" / "__init__.py").write_text("")
    (tmp_path / "agents" / "__init__.py").write_text("")
    (tmp_path / "workspace" / "files.py").write_text(WORKSPACE.replace("SORTED", sort))
    (tmp_path / "agents" / "reviewer.py").write_text(REVIEWER.replace("USE", use))


def test_a_listing_read_into_text_that_another_module_puts_in_a_prompt(tmp_path):
    # The module that walks the directory asks no model and imports no library: it is read because
    # it lists a directory and reads files (prefilter.py), and its text followed into the callers
    # of the other modules (cutreach.py).
    from projects import check_json

    _workspace_project(tmp_path, "pass", 'prompt = f"Review this code.\\n{code}\\nQuestion: {question}"')
    found = [f for f in check_json(tmp_path, ".", "CTX104") if f["confidence"] != "low"]
    assert [(f["path"], f["line"], f["kind"], f["confidence"]) for f in found] == [
        ("workspace/files.py", 10, "listing-reaches-prompt", "medium")]
    assert "(agents/reviewer.py:10)" in found[0]["message"]


def test_a_listing_sorted_before_it_is_returned_is_clean(tmp_path):
    from projects import check_json

    _workspace_project(tmp_path, 'found.sort(key=lambda item: item["name"])',
                       'prompt = f"Review this code.\\n{code}\\nQuestion: {question}"')
    assert check_json(tmp_path, ".", "CTX104") == []


def test_a_listing_whose_text_is_only_logged_is_clean(tmp_path):
    from projects import check_json

    _workspace_project(tmp_path, "pass", 'print(f"Reviewing:\\n{code}")\n    prompt = question')
    assert check_json(tmp_path, ".", "CTX104") == []


CONTEXT = '''\
"""The workspace context: tells the model its role and the files it works on."""
from pathlib import Path


def build_workspace_prompt(root: Path, patterns: list[str]) -> str:
    files: list[Path] = []
    for pattern in patterns:
        if found := LISTED:
            files.extend(found)
    parts = []
    for path in files:
        parts.append(f"## {path}\\n{path.read_text()}")
    return "# Workspace\\n\\n" + "\\n\\n".join(parts)
'''

SESSION = '''\
from pathlib import Path

from openai import OpenAI

from helper.context import build_workspace_prompt


def start(root: Path, question: str) -> str:
    workspace_prompt = build_workspace_prompt(root, ["*.md", "*.toml"])
    messages = [{"role": "system", "content": workspace_prompt}, {"role": "user", "content": question}]
    reply = OpenAI().chat.completions.create(model="gpt-4o", max_tokens=300, messages=messages)
    return reply.choices[0].message.content
'''


def _context_project(tmp_path, listed: str):
    (tmp_path / "helper").mkdir()
    (tmp_path / "helper" / "__init__.py").write_text("")
    (tmp_path / "helper" / "context.py").write_text(CONTEXT.replace("LISTED", listed))
    (tmp_path / "helper" / "session.py").write_text(SESSION)


def test_listing_text_returned_by_a_module_whose_docstring_says_role_is_followed_to_the_prompt(tmp_path):
    # The word `role` in the docstring makes the module look like one that builds chat messages;
    # the listing's text it returns is still followed into the module that sends it.
    from projects import check_json

    _context_project(tmp_path, "root.glob(pattern)")
    [found] = [f for f in check_json(tmp_path, ".", "CTX104") if f["confidence"] != "low"]
    assert (found["path"], found["line"], found["kind"]) == ("helper/context.py", 11, "listing-reaches-prompt")
    assert ("helper/context.py", 8) in {(e["path"], e["line"]) for e in found["evidence"]}  # the listing itself


def test_sorted_listing_text_returned_by_such_a_module_is_clean(tmp_path):
    from projects import check_json

    _context_project(tmp_path, "sorted(root.glob(pattern))")
    assert [f for f in check_json(tmp_path, ".", "CTX104") if f["confidence"] != "low"] == []


def test_a_listing_walked_in_step_with_another_list_keeps_its_order(tmp_path):
    # `zip(notes, listed)` walks the listing in its order, as `map(str.upper, listed)` does: the text
    # built from either lists the files in the file system's order (ordering.py, `_IN_STEP`, `_APPLIED`).
    from projects import check_json

    (tmp_path / "agent.py").write_text('''\
import os

from openai import OpenAI

client = OpenAI()


def review(folder, notes):
    listed = os.listdir(folder)
    pairs = "\\n".join(f"{name}: {note}" for name, note in zip(notes, listed))
    names = ", ".join(map(str.upper, listed))
    reply = client.chat.completions.create(model="gpt-4o", max_tokens=200, messages=[
        {"role": "system", "content": f"Notes:\\n{pairs}\\nFiles: {names}\\nReview each file."}])
    return reply.choices[0].message.content


print(review(".", ["a", "b"]))
''')
    found = [(f["line"], f["column"], f["kind"], f["confidence"]) for f in check_json(tmp_path, "agent.py", "CTX104")]
    assert found == [(10, 59, "call", "high"), (11, 23, "after-per-call", "low")]
    first = check_json(tmp_path, "agent.py", "CTX104")[0]["message"]
    assert first.startswith("`os.listdir` lists entries in whatever order the file system returns, so the text "
                            "built from it can differ between calls")


def test_a_listing_sorted_in_place_before_it_is_joined_is_fine(tmp_path):
    # `files.sort()` in the function that joins the listing puts it in order (ordering.py).
    from projects import check_json

    (tmp_path / "agent.py").write_text('''\
import os

from openai import OpenAI

client = OpenAI()


def listed(folder):
    files = os.listdir(folder)
    files.sort()
    focus = ", ".join(files)
    reply = client.chat.completions.create(model="gpt-4o", max_tokens=200, messages=[
        {"role": "user", "content": f"Describe the files {focus} in a table. Keep it short."}])
    return reply.choices[0].message.content


print(listed(input()))
''')
    assert check_json(tmp_path, "agent.py", "CTX104") == []


def test_every_caller_of_a_helper_that_lists_a_manifest_is_a_place_of_the_finding(tmp_path):
    # A plugin module with a dozen entry points, each handing one helper its own listing: the
    # helper's parameter is in no fixed order only if every call fills it so, and each call is
    # where `sorted(...)` goes, so all of them are read and named (not the first eight).
    from projects import check_json

    kinds = ["py", "go", "rs", "lua", "cs", "java", "ts", "js", "rb", "kt", "swift", "php"]
    entries = "".join(f'''

def summarise_{kind}(folder, ui, settings):
    manifest = [f for f in glob.glob(f"{{folder}}/**/*.{kind}", recursive=True)]
    return summarise(manifest, folder, ui, settings)
''' for kind in kinds) + f"\n\nPLUGINS = [{', '.join(f'summarise_{kind}' for kind in kinds)}]\n"
    (tmp_path / "plugins.py").write_text('''\
import glob
import os

from app.helpers import ask_in_thread


def summarise(manifest, folder, ui, settings):
    names = ", ".join([os.path.relpath(fp, folder) for index, fp in enumerate(manifest)])
    system_prompt = "You are a code reviewer."
    prompt = (f"Describe in a table what each of these files does: {names}. "
              "Then sum up what the whole project does, in two sentences.")
    return ask_in_thread(prompt, settings, ui, history=[], sys_prompt=system_prompt)
''' + entries)
    [found] = check_json(tmp_path, "plugins.py", "CTX104")
    assert (found["line"], found["kind"], found["confidence"]) == (8, "caller-call", "medium")
    listed = [e["line"] for e in found["evidence"] if "is passed as `manifest`" in e["text"]]
    assert listed == [16 + 5 * i for i in range(len(kinds))]


LLM = '''\
from openai import OpenAI

client = OpenAI()


def ask_many(inputs, prompts):
    return [client.chat.completions.create(model="gpt-4o", max_tokens=200, messages=[
        {"role": "system", "content": p}, {"role": "user", "content": i}]) for i, p in zip(inputs, prompts)]
'''

TRANSLATE = '''\
import os

from app.llm import ask_many


def translate(words):
    inputs = [str(w) for w in words]
    PROMPTS
    return ask_many(inputs, prompts)


def main(root):
    found = []
    for folder, _dirs, names in os.walk(root):
        found.extend(names)
    wanted = [n for n in found if n.endswith(".py")]
    translate(wanted)



main(".")
'''


@pytest.mark.parametrize(("prompts", "reached"), [
    ('prompts = ["Translate these names to English. Keep their format." for _ in inputs]', False),
    ('prompts = [f"Translate {i} to English. Keep its format." for i in inputs]', True)])
def test_a_comprehension_that_reads_nothing_of_the_listing_holds_none_of_its_order(tmp_path, prompts, reached):
    # `[RULES for _ in inputs]` builds one fixed text per item: the listing's order is not in it.
    write_package(tmp_path, {"llm.py": LLM, "words.py": TRANSLATE.replace("PROMPTS", prompts)})
    found = [(f["line"], f["kind"], f["confidence"]) for f in check_json(tmp_path, "app/words.py", "CTX104")
             if f["confidence"] != "low"]
    assert found == ([(14, "listing-reaches-prompt", "medium")] if reached else [])


ROLE = '''\
from app.examples import load_examples


class Role:
    def __init__(self, folder: str) -> None:
        self.examples: list[str] = []
        self.folder = folder

    def init_examples(self) -> None:
        self.examples = load_examples(self.folder)
'''

EXAMPLES = '''\
import glob
import os


def load_examples(folder: str) -> list[str]:
    found = []
    for path in glob.glob(os.path.join(folder, "*.yaml")):
        with open(path) as handle:
            found.append(handle.read())
    return found
'''

PLANNER = '''\
from openai import OpenAI

from app.role import Role

client = OpenAI()


class Planner(Role):
    def plan(self, task: str) -> str:
        self.init_examples()
        prompt = "You plan the steps of a task.\\n"
        for example in self.examples:
            prompt += f"Example:\\n{example}\\n"
        prompt += "Answer with a numbered list of steps."
        reply = client.chat.completions.create(model="gpt-4o", max_tokens=300, messages=[
            {"role": "system", "content": prompt}, {"role": "user", "content": task}])
        return reply.choices[0].message.content


print(Planner("examples").plan("ship it"))
'''


@pytest.mark.parametrize(("listed", "found"), [
    ('glob.glob(os.path.join(folder, "*.yaml"))', [("app/examples.py", 7, "call", "high")]),
    ('sorted(glob.glob(os.path.join(folder, "*.yaml")))', [])])
def test_a_listing_a_base_class_of_another_module_keeps_reaches_a_subclass_prompt(tmp_path, listed, found):
    # `self.examples` is never set by `Planner`: its base class sets it in a method, from a helper
    # of a third module that lists a folder (ordering.Ordering.set_by_base, callees.set_by_base).
    write_package(tmp_path, {"role.py": ROLE, "planner.py": PLANNER,
                             "examples.py": EXAMPLES.replace('glob.glob(os.path.join(folder, "*.yaml"))', listed)})
    reported = check_json(tmp_path, ".", "CTX104")
    assert [(f["path"], f["line"], f["kind"], f["confidence"]) for f in reported] == found
    if found:
        assert reported[0]["message"].startswith("`glob.glob` lists entries in whatever order the file system returns")


SEARCH = '''\
import os


def grep_files(root, needle, max_results=100):
    hits = []
    for current, _dirs, files in os.walk(root):
        for name in files:
            path = os.path.join(current, name)
            with open(path, encoding="utf-8", errors="replace") as handle:
                for number, line in enumerate(handle.read().splitlines(), 1):
                    if needle in line:
                        hits.append(f"{path}:{number}: {line.strip()}")
                        if len(hits) >= max_results:
                            return RETURNED, True
    return RETURNED, False
'''

GREP_TOOL = '''\
from langchain_core.tools import tool

from app.search import grep_files


@tool("grep")
def grep_tool(root: str, needle: str) -> str:
    """Find the lines of the files under root that hold the needle."""
    hits, truncated = grep_files(root, needle)
    if not hits:
        return "No matches"
    note = "\\n(more matches were left out)" if truncated else ""
    return "\\n".join(hits) + note
'''


@pytest.mark.parametrize(("returned", "found"), [
    ("hits", [("app/search.py", 6, "walk-cut-order", "medium")]),
    ("sorted(hits)", []),
])
def test_a_listing_returned_beside_a_flag_is_followed_to_the_tool_that_unpacks_it(tmp_path, returned, found):
    # `return hits, truncated`: the list is the first item of a returned tuple, and the walk's
    # order decides both the order of the lines and which of them survive the cap. The loop leaves
    # on that cap, so it is reported as a walk cut (walkcuts.py), once: the same order followed to
    # the tool as `listing-reaches-prompt` is that claim again.
    write_package(tmp_path, {"search.py": SEARCH.replace("RETURNED", returned), "tools.py": GREP_TOOL})
    reported = [f for f in check_json(tmp_path, ".", "CTX104") if f["confidence"] != "low"]
    assert [(f["path"], f["line"], f["kind"], f["confidence"]) for f in reported] == found
    if found:
        assert reported[0]["message"].startswith(
            "`os.walk` lists entries in whatever order the file system returns, and the loop leaves once `hits` "
            "holds `max_results` entries (line 13), before anything sorts them: which entries survive the cut, and "
            "so the tool's result, changes with the file system")
