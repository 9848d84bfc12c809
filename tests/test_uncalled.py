"""Findings in a function nothing calls: a request or a cut there never reaches a model, so the
finding is low confidence (shown with `--confidence low`, with the reason), decided over the whole
project on every run, cached results included."""

from __future__ import annotations

import json
from pathlib import Path

from ctxlint.references import unwritten

HELPERS = '''\
import requests
from openai import OpenAI

client = OpenAI()


def summarise_page(url: str) -> str:
    page = requests.get(url, timeout=10).text
    reply = client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": page}])
    return reply.choices[0].message.content


def ask(question: str) -> str:
    reply = client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": question}])
    return reply.choices[0].message.content


class Notes:
    def digest(self, text: str) -> str:
        reply = client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": text}])
        return reply.choices[0].message.content


class Summary(Notes):
    def run(self, text: str) -> str:  # a base class or a framework may call it by this name
        reply = client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": text}])
        return reply.choices[0].message.content


class Draft(Notes):
    def run(self, text: str) -> str:  # ... but nothing makes one of this class
        reply = client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": text}])
        return reply.choices[0].message.content


class Translator:
    def __call__(self, text: str) -> str:  # Python calls it, once code that names the class makes one
        reply = client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": text}])
        return reply.choices[0].message.content
'''

APP = '''\
from helpers import Summary, ask

# summary = summarise_page(url)   (a call commented out calls nothing)
print(ask("hello"), Summary().run("notes"))
'''


def _located(run) -> list[tuple[int, str, str]]:
    return [(f["line"], f["code"], f["confidence"]) for f in json.loads(run.stdout)]


def test_a_function_nothing_calls_is_low_confidence_with_the_reason(project):
    project.preview = False
    project.write({"helpers.py": HELPERS, "app.py": APP, ".git/HEAD": "ref: refs/heads/main\n"})
    default, low = project.run_many([("check", "--output-format", "json"),
                                     ("check", "--output-format", "json", "--confidence", "low")])
    assert _located(default) == [(14, "CTX201", "high"), (26, "CTX201", "high")]
    found = json.loads(low.stdout)
    assert [(f["line"], f["code"], f["confidence"]) for f in found] == [
        (9, "CTX201", "low"), (9, "CTX401", "low"), (14, "CTX201", "high"), (20, "CTX201", "low"),
        (26, "CTX201", "high"), (32, "CTX201", "low"), (38, "CTX201", "low")]
    assert found[0]["evidence"][-1] == {"kind": "flow", "text": "nothing in the project calls `summarise_page`",
                                        "strong": False, "path": "helpers.py", "line": 7, "column": 1, "cell": None}
    assert found[3]["evidence"][-1]["text"] == "nothing in the project calls `digest`"
    assert found[5]["evidence"][-1]["text"] == "nothing in the project calls `Draft`"
    assert found[6]["evidence"][-1]["text"] == "nothing in the project calls `Translator`"


def test_a_call_anywhere_in_the_project_counts_and_the_cache_does_not_hide_it(project):
    project.preview = False
    project.write({"helpers.py": HELPERS, "app.py": APP})
    first, again = project.run("check", "--output-format", "json"), project.run("check", "--output-format", "json")
    assert _located(first) == _located(again) == [(14, "CTX201", "high"), (26, "CTX201", "high")]
    # helpers.py is served from the cache; the new caller in a config file still counts
    project.write({"config/tools.yaml": "tools:\n  - summarise_page\n"})
    assert _located(project.run("check", "--output-format", "json")) == [
        (9, "CTX201", "high"), (9, "CTX401", "high"), (14, "CTX201", "high"), (26, "CTX201", "high")]


def test_decorated_functions_and_framework_handlers_are_not_asked(project):
    project.preview = False
    project.write({
        "server.py": "from fastapi import FastAPI\nfrom openai import OpenAI\n\napp = FastAPI()\nclient = OpenAI()\n\n\n"
                     "@app.get('/ask')\ndef ask(q: str) -> str:\n"
                     "    r = client.chat.completions.create(model='gpt-4o', messages=[{'role': 'user', 'content': q}])\n"
                     "    return r.choices[0].message.content\n",
        "app/api/chat/route.ts": 'import OpenAI from "openai";\nconst client = new OpenAI();\n\n'
                                 "export async function POST(req: Request) {\n  const { q } = await req.json();\n"
                                 '  const r = await client.chat.completions.create({ model: "gpt-4o", messages: '
                                 '[{ role: "user", content: q }] });\n  return Response.json(r);\n}\n',
        "lib/fix.ts": 'import OpenAI from "openai";\nconst client = new OpenAI();\n\n'
                      "export async function repair(text: string) {\n"
                      '  return client.chat.completions.create({ model: "gpt-4o", messages: '
                      '[{ role: "user", content: text }] });\n}\n',
    })
    run = project.run("check", "--select", "CTX201", "--output-format", "json")
    assert sorted((f["path"], f["line"]) for f in json.loads(run.stdout)) == [
        ("app/api/chat/route.ts", 6), ("server.py", 10)]  # lib/fix.ts's `repair`: nothing imports it


def test_unwritten_names_skip_their_definition_and_comment_lines(tmp_path: Path):
    (tmp_path / "a.py").write_text("def alpha():\n    pass\n\n\ndef beta():\n    alpha()\n", encoding="utf-8")
    (tmp_path / "b.ts").write_text("// gamma(1)\n/* delta */\nconst x = betas + alphabet;\n", encoding="utf-8")
    (tmp_path / "node_modules").mkdir()
    (tmp_path / "node_modules" / "c.js").write_text("beta(); gamma();\n", encoding="utf-8")
    a = str(tmp_path / "a.py")
    names = {"alpha": {(a, 1)}, "beta": {(a, 5)}, "gamma": {(a, 9)}}
    assert unwritten(tmp_path, names) == {"beta", "gamma"}


def test_in_a_git_work_tree_untracked_files_count_and_comments_do_not(tmp_path: Path):
    import subprocess

    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "a.py").write_text("def alpha():\n    pass\n\n\ndef beta():\n    pass\n", encoding="utf-8")
    (tmp_path / "b.py").write_text("# alpha()\nfrom a import beta\n\nbeta()\n", encoding="utf-8")  # untracked
    a = str((tmp_path / "a.py").resolve())
    assert unwritten(tmp_path.resolve(), {"alpha": {(a, 1)}, "beta": {(a, 5)}}) == {"alpha"}


def test_a_changelog_mention_is_no_use_and_a_module_named_history_is_code(tmp_path: Path):
    (tmp_path / "history.py").write_text("def trim(turns):\n    return turns\n\n\ndef keep():\n    return trim([])\n",
                                         encoding="utf-8")
    (tmp_path / "CHANGELOG.md").write_text("- `old_helper` was removed.\n", encoding="utf-8")
    (tmp_path / "helpers.py").write_text("def old_helper():\n    pass\n", encoding="utf-8")
    history, helpers = str((tmp_path / "history.py").resolve()), str((tmp_path / "helpers.py").resolve())
    assert unwritten(tmp_path.resolve(), {"trim": {(history, 1)}, "old_helper": {(helpers, 1)}}) == {"old_helper"}


def test_a_top_level_function_is_called_only_where_its_module_is_named(tmp_path: Path):
    utils = tmp_path / "pkg" / "utils"
    utils.mkdir(parents=True)
    (utils / "shell.py").write_text("def run_command(args):\n    return args\n", encoding="utf-8")
    (utils / "text.py").write_text("def clip(text):\n    return text\n", encoding="utf-8")
    (utils / "__init__.py").write_text("from .text import clip\n", encoding="utf-8")  # re-exported: a use
    # another object's method of the same name, in a module that imports another module named `shell`
    (tmp_path / "pkg" / "tools.py").write_text("from pkg.sandbox.shell import quote\n\n\nclass Sandbox:\n"
                                               "    def run_command(self, args):\n        return quote(args)\n\n\n"
                                               "print(Sandbox().run_command(['ls']))\n", encoding="utf-8")
    (tmp_path / "pkg" / "app.ts").write_text('import { clip } from "./utils";\nclip("x");\n', encoding="utf-8")
    shell, text = str((utils / "shell.py").resolve()), str((utils / "text.py").resolve())
    names = {"run_command": {(shell, 1)}, "clip": {(text, 1)}}
    tied = {"run_command": frozenset({utils / "shell.py"}), "clip": frozenset({utils / "text.py"})}
    assert unwritten(tmp_path.resolve(), names, tied) == {"run_command"}
    assert unwritten(tmp_path.resolve(), names) == set()  # by the name alone, both are written
    (tmp_path / "docs.md").write_text("Call `run_command` to run a command.\n", encoding="utf-8")
    assert unwritten(tmp_path.resolve(), names, tied) == set()  # a doc or configuration file may name it any way
    (tmp_path / "docs.md").unlink()
    (tmp_path / "pkg" / "cli.py").write_text("from pkg.utils import shell\n\nshell.run_command(['ls'])\n",
                                             encoding="utf-8")
    assert unwritten(tmp_path.resolve(), names, tied) == set()  # imported by its folder and name


def test_a_method_of_another_object_does_not_call_a_module_function(project):
    project.preview = False
    project.write({
        "app/__init__.py": "",
        "app/shell.py": "import subprocess\n\n\ndef run_command(args):\n"
                        "    out = subprocess.run(args, capture_output=True, text=True).stdout\n"
                        "    return out[-2000:]\n",
        "app/agent.py": "from openai import OpenAI\n\nclient = OpenAI()\n\n\nclass Sandbox:\n"
                        "    def run_command(self, args):\n        return ' '.join(args)\n\n\n"
                        "def step(sandbox: Sandbox, args):\n"
                        "    result = sandbox.run_command(args)\n"
                        "    return client.chat.completions.create(model='gpt-4o', max_completion_tokens=300,\n"
                        "        messages=[{'role': 'user', 'content': result}])\n\n\n"
                        "print(step(Sandbox(), ['ls']))\n",
        ".git/HEAD": "ref: refs/heads/main\n",
    })
    run = project.run("check", "--select", "CTX205", "--confidence", "low", "--output-format", "json")
    [found] = json.loads(run.stdout)
    assert (found["path"], found["line"], found["confidence"]) == ("app/shell.py", 6, "low")
    assert found["evidence"][-1]["text"] == "nothing in the project calls `run_command`"


TEMPLATES = '''\
SUMMARY_TEMPLATE = """Summarise the web page below in three sentences.
{page}
Question: {question}"""

OLD_SUMMARY_TEMPLATE = """Summarise the web page below in five bullet points.
{page}
Question: {question}"""

LOCAL_TEMPLATE = """Summarise the web page below in one line.
{page}
Question: {question}"""


def short_summary(page: str, question: str) -> str:
    return LOCAL_TEMPLATE.format(page=page, question=question)
'''


def test_a_prompt_constant_nothing_reads_is_low_confidence_with_the_reason(project):
    # A template no line names is never rendered: its finding is low; one read in another module
    # or in its own is not.
    project.preview = False
    project.write({"prompts.py": TEMPLATES, ".git/HEAD": "ref: refs/heads/main\n",
                   "app.py": "from prompts import SUMMARY_TEMPLATE, short_summary\n\n"
                             "print(SUMMARY_TEMPLATE, short_summary('text', 'why?'))\n"})
    default, low = project.run_many([("check", "--output-format", "json", "--select", "CTX401"),
                                     ("check", "--output-format", "json", "--select", "CTX401",
                                      "--confidence", "low")])
    assert [line for line, _, _ in _located(default)] == [2, 10]
    unread = [f for f in json.loads(low.stdout) if f["line"] == 6]
    assert [f["confidence"] for f in unread] == ["low"]
    assert unread[0]["evidence"][-1]["text"] == "nothing in the project reads `OLD_SUMMARY_TEMPLATE`"


def test_relative_imports_that_go_up_count(tmp_path: Path):
    (tmp_path / "app" / "api" / "chat").mkdir(parents=True)
    (tmp_path / "app" / "actions.ts").write_text("export async function makeTitle(text: string) {\n  return text;\n}\n",
                                                  encoding="utf-8")
    (tmp_path / "app" / "api" / "chat" / "route.ts").write_text(
        'import { makeTitle } from "../../actions";\nmakeTitle("x");\n', encoding="utf-8")
    (tmp_path / "pkg" / "sub").mkdir(parents=True)
    (tmp_path / "pkg" / "shell.py").write_text("def run_command(args):\n    return args\n", encoding="utf-8")
    (tmp_path / "pkg" / "sub" / "cli.py").write_text("from .. import shell\n\nshell.run_command([])\n",
                                                     encoding="utf-8")
    actions, shell = (tmp_path / "app" / "actions.ts").resolve(), (tmp_path / "pkg" / "shell.py").resolve()
    names = {"makeTitle": {(str(actions), 1)}, "run_command": {(str(shell), 1)}}
    assert unwritten(tmp_path.resolve(), names, {"makeTitle": frozenset({actions}),
                                                 "run_command": frozenset({shell})}) == set()


def test_a_call_through_a_folder_whose_index_re_exports_the_module_counts(tmp_path: Path):
    utils = tmp_path / "src" / "utils"
    utils.mkdir(parents=True)
    (utils / "fetch-capped.mjs").write_text("export function fetchCapped(url) {\n  return url\n}\n", encoding="utf-8")
    (utils / "clamp.mjs").write_text("export function clampText(text) {\n  return text\n}\n", encoding="utf-8")
    (utils / "index.mjs").write_text("export * from './fetch-capped'\n", encoding="utf-8")  # not clamp.mjs
    (tmp_path / "src" / "adapters").mkdir()
    (tmp_path / "src" / "adapters" / "github.mjs").write_text(
        "import { fetchCapped, clampText } from '../utils'\nfetchCapped('x')\nclampText('y')\n", encoding="utf-8")
    fetch, clamp = (utils / "fetch-capped.mjs").resolve(), (utils / "clamp.mjs").resolve()
    names = {"fetchCapped": {(str(fetch), 1)}, "clampText": {(str(clamp), 1)}}
    # the folder's index re-exports one module only: an import of the folder reaches that one
    assert unwritten(tmp_path.resolve(), names, {"fetchCapped": frozenset({fetch}),
                                                 "clampText": frozenset({clamp})}) == {"clampText"}


def test_a_call_commented_out_after_code_or_a_name_only_imported_calls_nothing(tmp_path: Path):
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "merge.ts").write_text("export async function mergeAnswers(a: string[]) {\n  return a;\n}\n"
                                                 "export function pickBest(a: string[]) {\n  return a[0];\n}\n",
                                                 encoding="utf-8")
    (tmp_path / "tools" / "notes.py").write_text("def condense(text):\n    return text\n\n\n"
                                                 "def outline(text):\n    return text\n", encoding="utf-8")
    (tmp_path / "agent.ts").write_text(
        'import {\n  mergeAnswers,\n  pickBest,\n} from "./tools/merge";\n\n'
        'const url = "https://example.com/pickBest";\n'
        "const answer = parts.join(\"\\n\"); // await mergeAnswers(parts)\n", encoding="utf-8")
    (tmp_path / "run.py").write_text("from tools.notes import condense, outline as shorten\n\n"
                                     "summary = shorten(text)  # summary = condense(text)\n", encoding="utf-8")
    merge, notes = (tmp_path / "tools" / "merge.ts").resolve(), (tmp_path / "tools" / "notes.py").resolve()
    names = {"mergeAnswers": {(str(merge), 1)}, "pickBest": {(str(merge), 4)}, "condense": {(str(notes), 1)},
             "outline": {(str(notes), 5)}}
    # pickBest is written in a string, outline is imported under another name that is called
    assert unwritten(tmp_path.resolve(), names) == {"mergeAnswers", "condense"}
    (tmp_path / "tools" / "index.ts").write_text('import { mergeAnswers } from "./merge";\n', encoding="utf-8")
    assert unwritten(tmp_path.resolve(), names) == {"condense"}  # a package's entry imports to re-export


HISTORY_HELPERS = '''\
from openai import OpenAI

client = OpenAI()

MAX_NOTE_CHARS = 3000 * 4

HINT_TEMPLATE = """Past tickets that look like this one:
<tickets>
{tickets}
</tickets>
""" + "Answer in one line."


def shorten(note):
    return note[:MAX_NOTE_CHARS]


def hint_prompt(tickets):
    return HINT_TEMPLATE.format(tickets="\\n".join(shorten(t) for t in tickets))


def ask_for_hint(tickets):
    return client.chat.completions.create(model="gpt-4o", max_completion_tokens=200,
                                          messages=[{"role": "user", "content": hint_prompt(tickets)}])


if __name__ == "__main__":
    print(ask_for_hint(["The export button does nothing."]))
'''


def test_a_constant_named_only_in_functions_nothing_else_calls_is_low_confidence(project):
    # HINT_TEMPLATE and MAX_NOTE_CHARS are read by hint_prompt and shorten, which only
    # ask_for_hint reaches, which only the package module's own __main__ block calls: none of it
    # runs when the application imports the module. Once another module calls hint_prompt, all of
    # it does.
    project.preview = False
    project.write({"desk/__init__.py": "", "desk/hints.py": HISTORY_HELPERS, ".git/HEAD": "ref: refs/heads/main\n",
                   "desk/app.py": "# from desk.hints import ask_for_hint\nprint('ready')\n",
                   "docs/post.md": "```python\nhint_prompt = 'Give me a hint'\nprint(hint_prompt)\n```\n"})
    default, low = project.run_many([("check", "--output-format", "json", "--select", "CTX403,CTX205"),
                                     ("check", "--output-format", "json", "--select", "CTX403,CTX205",
                                      "--confidence", "low")])
    assert json.loads(default.stdout) == []
    lowered = {(f["line"], f["code"]): f["evidence"][-1]["text"] for f in json.loads(low.stdout)}
    assert lowered[9, "CTX403"] == ("nothing in the project reads `HINT_TEMPLATE` but `hint_prompt`, `ask_for_hint`, "
                                    "which nothing else calls outside its module's `__main__` block (line 27), "
                                    "which runs only by hand")
    assert lowered[19, "CTX205"].startswith("nothing in the project calls `hint_prompt` but `ask_for_hint`")
    project.write({"desk/app.py": "from desk.hints import hint_prompt\nprint(hint_prompt(['x']))\n"})
    again = project.run("check", "--output-format", "json", "--select", "CTX403,CTX205")
    assert sorted((f["line"], f["code"]) for f in json.loads(again.stdout)) == [(9, "CTX403"), (19, "CTX205")]


def test_a_notebooks_stored_output_is_no_use_of_a_name(tmp_path: Path):
    (tmp_path / "jobs.py").write_text("def nightly_digest(rows):\n    return rows\n", encoding="utf-8")
    cells = {"cells": [{"cell_type": "code", "source": ["import jobs\n", "print(jobs.__file__)\n"],
                        "outputs": [{"output_type": "stream", "text": ["jobs.py nightly_digest\n"]}]}]}
    (tmp_path / "explore.ipynb").write_text(json.dumps(cells), encoding="utf-8")
    names = {"nightly_digest": {(str((tmp_path / "jobs.py").resolve()), 1)}}
    tied = {"nightly_digest": frozenset({(tmp_path / "jobs.py").resolve()})}
    assert unwritten(tmp_path.resolve(), names, tied) == {"nightly_digest"}
    cells["cells"][0]["source"].append("jobs.nightly_digest([])\n")
    (tmp_path / "explore.ipynb").write_text(json.dumps(cells), encoding="utf-8")
    assert unwritten(tmp_path.resolve(), names, tied) == set()


def test_module_functions_come_with_the_functions_that_alone_reach_them():
    import ast

    from ctxlint.frontends.python.named import named_functions

    source = ("LIMIT = 1024 * 4\nTITLE = 'Notes'\nPROMPT = '''Notes:\n{notes}''' + TITLE\n\n\n"
              "@staticmethod\ndef clip(text):\n    return text[:LIMIT]\n\n\n"
              "def build(notes):\n    return PROMPT.format(notes=clip(notes))\n\n\n"
              "def main():\n    return build('x')\n\n\n@app.route('/')\ndef index():\n    return main()\n")
    found = {f.name: [r.name for r in f.readers] for f in named_functions(ast.parse(source))}
    # a registered route is not reached by its name, so it is neither asked about nor a reader
    assert found == {"LIMIT": ["clip", "build", "main"], "TITLE": ["PROMPT", "build", "main"],
                     "PROMPT": ["build", "main"], "clip": ["build", "main"], "build": ["main"], "main": []}


def test_another_functions_def_line_is_no_use_and_an_override_reached_only_by_the_group_calls_nothing(tmp_path):
    """`def add_examples` in a subclass defines another function of that name; a call inside the
    subclass's `build_prompt` (an override of the reader asked with it) runs only if something calls
    `build_prompt`, and nothing does; a decorated function of that name is registered, and counts."""
    base = tmp_path / "base.py"
    base.write_text("from abc import ABC\n\n\nclass Base(ABC):\n    def add_examples(self, text):\n"
                    "        return text[:4000]\n\n    def build_prompt(self, text):\n"
                    "        return self.add_examples(text)\n", encoding="utf-8")
    (tmp_path / "local.py").write_text(
        "from base import Base\n\n\nclass Local(Base):\n    @staticmethod\n    def add_examples(text):\n"
        "        return text\n\n    def build_prompt(\n        self, text\n    ) -> str:\n"
        "        return Local.add_examples(text)\n", encoding="utf-8")
    at = str(base.resolve())
    group = frozenset({"add_examples", "build_prompt"})
    names = {f"{n}\0base.py": {(at, line) for line in range(5, 10)} for n in group}
    asked = {name: group for name in names}
    assert unwritten(tmp_path.resolve(), names, None, asked) == set(names)
    (tmp_path / "routes.py").write_text(
        "@app.post('/prompt')\ndef build_prompt(text):\n    return Local.add_examples(text)\n", encoding="utf-8")
    assert unwritten(tmp_path.resolve(), names, None, asked) == {"build_prompt\0base.py"}


def test_the_methods_of_an_abstract_base_are_reached_by_their_names():
    import ast

    from ctxlint.frontends.python.named import named_functions

    source = ("import abc\nfrom abc import ABC\n\n\nclass Store(ABC):\n    def add(self, text):\n"
              "        return text\n\n\nclass Other(abc.ABC):\n    def put(self, text):\n        return text\n\n\n"
              "class Tool(BaseTool):\n    def run(self, text):\n        return text\n")
    assert [f.name for f in named_functions(ast.parse(source))] == ["add", "put", "Tool"]


def test_a_module_of_a_package_the_project_imports_by_a_name_it_makes_runs(tmp_path: Path):
    """A plugin loader (`import_module(f"app.plugins.{name}")` over a folder's files) runs the
    classes at the top of the modules of that package; another folder of the same last name does not."""
    plugins, other = tmp_path / "app" / "plugins", tmp_path / "tests" / "plugins"
    plugins.mkdir(parents=True)
    other.mkdir(parents=True)
    (plugins / "weather.py").write_text("class weather:\n    def forecast(self, city):\n        return city\n",
                                        encoding="utf-8")
    (other / "fake.py").write_text("class fake:\n    pass\n", encoding="utf-8")
    weather, fake = str((plugins / "weather.py").resolve()), str((other / "fake.py").resolve())
    names = {"weather": {(weather, 1)}, "fake": {(fake, 1)}}
    tied = {"weather": frozenset({plugins / "weather.py"}), "fake": frozenset({other / "fake.py"})}
    assert unwritten(tmp_path.resolve(), names, tied) == {"weather", "fake"}
    (tmp_path / "app" / "loader.py").write_text(
        "import glob\nimport importlib\nimport os\n\n\ndef load(folder):\n"
        "    for path in glob.glob(os.path.join(folder, '*.py')):\n"
        "        name = os.path.splitext(os.path.basename(path))[0]\n"
        "        module = importlib.import_module(f\"app.plugins.{name}\")\n"
        "        yield getattr(module, name)()\n", encoding="utf-8")
    assert unwritten(tmp_path.resolve(), names, tied) == {"fake"}


CLIENTS = '''\
from openai import OpenAI


class Relay:
    """A wrapper kept for later: nothing builds one."""

    def __init__(self, client: OpenAI, model: str) -> None:
        self._client = client
        self.model = model

    def create(self, text: str) -> str:
        reply = self._client.chat.completions.create(model=self.model, messages=[{"role": "user", "content": text}])
        return reply.choices[0].message.content


class Courier:
    def __init__(self, client: OpenAI) -> None:
        self._client = client

    def create(self, text: str) -> str:
        reply = self._client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": text}])
        return reply.choices[0].message.content
'''

SENDER = '''\
from openai import OpenAI

from clients import Courier

# Relay(OpenAI(), "gpt-4o") would be the other one (a comment builds nothing)
print(Courier(OpenAI()).create("hello"))
'''


def test_a_method_of_a_class_nothing_names_is_low_confidence_though_its_name_is_called(project):
    # `create` is called (on a Courier), but no line outside its class names `Relay`: no object of
    # it is ever made, so its own `create` never runs
    project.preview = False
    project.write({"clients.py": CLIENTS, "send.py": SENDER, ".git/HEAD": "ref: refs/heads/main\n"})
    default, low = project.run_many([("check", "--output-format", "json"),
                                     ("check", "--output-format", "json", "--confidence", "low")])
    assert _located(default) == [(21, "CTX201", "high")]
    found = json.loads(low.stdout)
    assert [(f["line"], f["code"], f["confidence"]) for f in found] == [(12, "CTX201", "low"), (21, "CTX201", "high")]
    assert found[0]["evidence"][-1]["text"] == "nothing in the project names `Relay`, so no object of it calls `create`"
