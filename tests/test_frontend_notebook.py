"""Jupyter notebooks: code cells read as one module, locations by cell in every output format,
`--fix` refused clearly, and broken notebooks reported, never a traceback."""

from __future__ import annotations

import json

from ctxlint.frontends import notebook
from ctxlint.model import Role

from test_output_formats import schema_errors, sarif_validator  # noqa: F401 - a fixture

SETUP = ["import json\n", "from datetime import datetime\n", "from openai import OpenAI\n", "\n", "client = OpenAI()"]
PROMPT = ["PROFILE = dict.fromkeys({'pro_plan', 'eu_region'}, True)\n",
          "SYSTEM_PROMPT = f\"Profile: {json.dumps(PROFILE)}\\nYou are the account assistant. Never change a plan. "
          "Explain each setting of the profile in plain words, ask for the account number before you discuss an "
          "account, and hand billing disputes or a request to close the account to a human agent with a short summary.\""]
CALL = ["def ask(question):\n",
        "    return client.chat.completions.create(\n",
        "        model='gpt-4o',\n",
        "        messages=[{'role': 'system', 'content': SYSTEM_PROMPT}, {'role': 'user', 'content': question}],\n",
        "    )"]


def make(*cells, language: str = "python") -> str:
    return json.dumps({
        "nbformat": 4, "nbformat_minor": 5,
        "metadata": {"kernelspec": {"language": language, "name": language}},
        "cells": [{"cell_type": kind, "metadata": {}, "source": source,
                   **({"outputs": [{"output_type": "stream", "text": ["SYSTEM_PROMPT = f'{datetime.now()}'"]}],
                       "execution_count": 1} if kind == "code" else {})}
                  for kind, source in cells],
    }, indent=1)


ACCOUNT = make(("markdown", ["# Account bot\n", "Cached prompt: {{ now() }}"]), ("code", SETUP),
               ("code", PROMPT), ("code", CALL))


def test_code_cells_form_one_module_and_spans_point_into_cells():
    parsed = notebook.parse_file(ACCOUNT, "bot.ipynb")
    assert parsed.embedded is not None and not parsed.errors
    [request] = [r for r in parsed.requests if r.output_limit is None and r.tools == () and r.anchor.line > 6]
    system = request.segments[0]
    assert system.role is Role.SYSTEM
    moved = parsed.embedded.relocate(system.span)
    assert (moved.cell, moved.line, moved.column) == (3, 2, 19)
    anchor = parsed.embedded.relocate(request.anchor)
    assert (anchor.cell, anchor.line) == (4, 2)


def test_text_json_and_sarif_say_the_cell(project, sarif_validator):  # noqa: F811 - the fixture
    project.write({"bot.ipynb": ACCOUNT})
    text, as_json, sarif = project.run_many([("check", "bot.ipynb", "--output-format", "concise"),
                                             ("check", "bot.ipynb", "--output-format", "json"),
                                             ("check", "bot.ipynb", "--output-format", "sarif")])
    assert text.code == 1
    assert [line.split(" CTX")[0] + " CTX" + line.split(" CTX")[1][:3] for line in text.lines[:-1]] == [
        "bot.ipynb:cell 3:2:29: CTX103", "bot.ipynb:cell 4:2:12: CTX201"]
    findings = json.loads(as_json.stdout)
    assert [(f["code"], f["cell"], f["line"], f["column"]) for f in findings] == [
        ("CTX103", 3, 2, 29), ("CTX201", 4, 2, 12)]
    assert findings[0]["fix"]["line"] == 2 and findings[0]["fix"]["replacement"].endswith("sort_keys=True)")
    log = json.loads(sarif.stdout)
    assert schema_errors(sarif_validator, log) == []
    location = log["runs"][0]["results"][0]["locations"][0]
    assert location["physicalLocation"]["region"]["properties"] == {"cell": 3}
    assert location["logicalLocations"] == [{"name": "cell 3", "kind": "module"}]


def test_fix_refuses_notebooks_and_leaves_them_untouched(project):
    project.write({"bot.ipynb": ACCOUNT})
    run = project.run("check", "--fix", "bot.ipynb")
    assert run.code == 1
    assert run.err_lines == ["bot.ipynb: not fixed: ctxlint does not rewrite notebooks; apply the fix in the cell by "
                             "hand (`--output-format json` shows it)"]
    assert (project.root / "bot.ipynb").read_text(encoding="utf-8") == ACCOUNT


def test_suppression_in_a_cell(project):
    suppressed = make(("code", SETUP), ("code", [PROMPT[0], PROMPT[1] + "  # ctxlint: ignore[CTX103]"]),
                      ("code", CALL))
    project.write({"bot.ipynb": suppressed})
    concise = project.run("check", "bot.ipynb", "--output-format", "concise")
    assert [line.split(" No output")[0] for line in concise.lines[:-1]] == [
        "bot.ipynb:cell 3:2:12: CTX201"]


def test_typescript_kernel_is_read_as_typescript():
    source = make(("code", ["import OpenAI from 'npm:openai';\n", "const client = new OpenAI();"]),
                  ("code", ["await client.chat.completions.create({ model: 'gpt-4o', messages: [] });"]),
                  language="typescript")
    parsed = notebook.parse_file(source, "deno.ipynb")
    [request] = parsed.requests
    assert parsed.embedded is not None
    anchor = parsed.embedded.relocate(request.anchor)
    assert (anchor.cell, anchor.line, anchor.column) == (2, 1, 7)


def test_broken_notebooks_get_a_located_error_or_nothing():
    assert notebook.parse_file('{"cells": [', "a.ipynb").errors[0][1].startswith("not valid notebook JSON")
    assert notebook.parse_file("[1, 2]", "b.ipynb").errors[0][1] == "not a Jupyter notebook: there is no `cells` list"
    deep = notebook.parse_file('{"cells": ' + "[" * 100_000 + "]" * 100_000 + "}", "c.ipynb")
    assert deep.errors and deep.errors[0][0].line == 1
    odd = notebook.parse_file(json.dumps({"cells": [None, 3, {"cell_type": "code", "source": 7}, {"cell_type": "code"}]}),
                              "d.ipynb")
    assert odd.errors == [] and odd.requests == []
    julia = make(("code", ["SYSTEM_PROMPT = \"x\""]), language="julia")
    assert notebook.parse_file(julia, "e.ipynb").requests == []


def test_cost_names_the_cell_of_each_request(project):
    project.write({"bot.ipynb": ACCOUNT})
    run = project.run("cost", "bot.ipynb")
    assert run.code == 0
    assert [line.split("  ")[0] for line in run.lines if line.startswith("bot.ipynb")] == ["bot.ipynb:cell 4:2"]


def test_ipython_shell_commands_over_several_lines_and_assigned_magics_parse():
    cells = make(
        ("code", ["!pip install -q \\\n", "    openai \\\n", "    'httpx<0.28'\n"]),
        ("code", ["import os\n", "\n", "def config_path():\n", "    here = %pwd\n",
                  "    files = !ls configs\n", "    return os.path.join(here, files[0])\n"]),
    )
    parsed = notebook.parse_file(cells, "setup.ipynb")
    assert parsed.errors == []


def test_ipython_syntax_is_read_only_where_a_statement_starts():
    """A prompt line ending in `?` or starting with `!`/`%` is the prompt's text, not a magic;
    a shell command inside an `if` leaves the block a body."""
    cells = make(
        ("code", ["import os\n", "if not os.path.exists('/tmp/kit'):\n",
                  "    !git clone https://example.org/kit /tmp/kit\n", "else:\n", "    print('already there')\n"]),
        ("code", ["from openai import OpenAI\n", "client = OpenAI()\n", "TICKETS = [\n",
                  "    \"\"\"Subject: Can I export my data?\n", "    !important: reply in French\n",
                  "    %s of users asked the same\"\"\",\n", "]\n",
                  "client.chat.completions.create(model='gpt-4o', max_tokens=300,\n",
                  "    messages=[{'role': 'user', 'content': TICKETS[0]}])\n"]),
    )
    parsed = notebook.parse_file(cells, "tickets.ipynb")
    assert parsed.errors == []
    assert parsed.embedded is not None
    assert "    pass  # !git clone https://example.org/kit /tmp/kit" in parsed.embedded.text.splitlines()
    assert "Subject: Can I export my data?\n    !important: reply in French" in parsed.embedded.text
