"""One megabyte per front-end: CPU time and peak memory of linting generated 1 MB files.

    python benchmarks/sizes.py [--size BYTES] [--only NAME] [--cli]

The target of issue 14 is that no single file of 1 MB or less takes more than 2 s or 300 MB. For
every front-end (Python, TypeScript, Jinja, YAML and JSON requests and tools, Markdown,
notebooks, Prompty, Dotprompt, Semantic Kernel, plain text) this builds files of about
``--size`` bytes out of a realistic unit repeated (call sites, messages, tools, paragraphs,
cells) and out of hostile shapes (one enormous literal, directives, deep nesting, long lines),
and lints each as `ctxlint check --select ALL --preview --confidence low` would and prices it as
`ctxlint cost` would, in a fresh process. It reports, per file, the CPU seconds of the lint and
of the pricing (separate commands: each is held to 2 s; pricing parses the file again), and the
peak resident memory of that process (the interpreter with both tokenizers loaded is most of it:
its size before the file is read is shown too), and marks what crosses 2 s or 300 MB.

With ``--cli`` each file is written to a temporary directory and checked and priced by the
commands a user runs, ``ctxlint check --no-cache --preview --select ALL --confidence low`` and
``ctxlint cost``, each its own process: CPU seconds and peak memory per command, start-up and
tokenizer loading included (the in-process measure loads the tokenizers before it starts the
clock).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SECONDS_LIMIT = 2.0
MEMORY_LIMIT_MB = 300

PY_CLIENT = "from openai import OpenAI\nimport requests\n\nclient = OpenAI()\n"
PY_SEND = ('client.chat.completions.create(model="gpt-4o", max_tokens=400, '
           'messages=[{"role": "system", "content": SYSTEM}])\n')
TS_CLIENT = 'import OpenAI from "openai";\nconst client = new OpenAI();\n'


def _py_call_sites(i: int) -> str:
    return (f"def answer_{i}(question, url):\n"
            f"    page = requests.get(url, timeout=5).text\n"
            f'    system = "You are the support assistant for team {i}. Answer from the page only."\n'
            f"    return client.chat.completions.create(\n"
            f'        model="gpt-4o", max_tokens=400,\n'
            f'        messages=[{{"role": "system", "content": system + "\\n<page>" + page + "</page>"}},\n'
            f'                  {{"role": "user", "content": question}}])\n\n\n')


def _ts_call_sites(i: int) -> str:
    return (f"export async function answer{i}(question: string, page: string) {{\n"
            f"  const system = `You are the support assistant for team {i}. Page: ${{page}}`;\n"
            f"  return client.chat.completions.create({{\n"
            f'    model: "gpt-4o", max_tokens: 400,\n'
            f'    messages: [{{ role: "system", content: system }}, {{ role: "user", content: question }}],\n'
            f"  }});\n}}\n\n")


def _notebook(size: int) -> str:
    cells = [{"cell_type": "code", "metadata": {}, "execution_count": 1, "outputs": [],
              "source": PY_CLIENT.splitlines(keepends=True)}]
    i, written = 0, len(json.dumps(cells))
    while written < size:  # each cell's own length added: dumping all cells again each time was quadratic
        for cell in ({"cell_type": "markdown", "metadata": {}, "source": [f"## Answer {i}\n", "Asks the model.\n"]},
                     {"cell_type": "code", "metadata": {}, "execution_count": i + 2, "outputs": [],
                      "source": _py_call_sites(i).splitlines(keepends=True)}):
            cells.append(cell)
            written += len(json.dumps(cell)) + 2  # and the ", " before it
        i += 1
    return json.dumps({"nbformat": 4, "nbformat_minor": 5,
                       "metadata": {"kernelspec": {"language": "python", "name": "python3"}}, "cells": cells})


def _json_request(size: int) -> str:
    message = {"role": "user", "content": "Web page: {{ page }}. Answer in one line. Never guess a price."}
    count = size // len(json.dumps(message))
    return json.dumps({"model": "gpt-4o", "max_tokens": 400, "messages": [message] * count}, indent=1)


def _yaml_tools(size: int) -> str:
    unit = ("  - name: lookup_{i}\n    description: Look up order {i} by its number and return its status.\n"
            "    input_schema:\n      type: object\n      properties:\n        order: {{type: string}}\n"
            "      required: [order]\n")
    return "tools:\n" + "".join(unit.format(i=i) for i in range(size // len(unit)))


def _repeat(head: str, unit: Callable[[int], str], size: int, tail: str = "") -> str:
    parts, total, i = [head], len(head), 0
    while total < size:
        piece = unit(i)
        parts.append(piece)
        total += len(piece)
        i += 1
    return "".join(parts) + tail


# name -> (file name, text of about `size` bytes)
SHAPES: dict[str, tuple[str, Callable[[int], str]]] = {
    "python: call sites": ("service.py", lambda n: _repeat(PY_CLIENT, _py_call_sites, n)),
    "python: one huge prompt constant": ("prompts.py", lambda n: PY_CLIENT + 'SYSTEM = """'
                                         + "Never guess. " * (n // 13) + '"""\n' + PY_SEND),
    "python: implicit concatenation": ("concat.py", lambda n: PY_CLIENT + "SYSTEM = (\n"
                                       + '    "Never guess. "\n' * (n // 20) + ")\n" + PY_SEND),
    "typescript: call sites": ("service.ts", lambda n: _repeat(TS_CLIENT, _ts_call_sites, n)),
    "jinja: instructions and slots": ("answer.j2", lambda n: _repeat(
        "You are the support assistant.\n", lambda i: f"Rule {i}: never guess a price. Page: {{{{ page_{i % 50} }}}}\n",
        n)),
    "jinja: loops over documents": ("rag.j2", lambda n: "Answer from the documents.\n" + (
        "{% for d in documents %}<doc>{{ d.text }}</doc>{% endfor %}\n" * (n // 61))),
    "jinja: directives": ("rules.j2", lambda n: _repeat(
        "", lambda i: "{# ctxlint: ignore[CTX101] #}Time: {{ now() }}\nNever guess.\n", n)),
    "json: request with many messages": ("request.json", _json_request),
    "yaml: many tools": ("tools.yaml", _yaml_tools),
    "yaml: anchors and aliases": ("request.yaml", lambda n: "base: &m {role: user, content: 'Page: {{ page }}'}\n"
                                  "model: gpt-4o\nmax_tokens: 400\nmessages:\n" + "  - *m\n" * (n // 7)),
    "markdown: paragraphs and directives": ("prompts/guide.md", lambda n: _repeat(
        "# Support guide\n\n", lambda i: f"<!-- ctxlint: pinned -->\nRule {i}: never guess a price.\n\n", n)),
    "notebook: call sites in cells": ("analysis.ipynb", _notebook),
    "prompty: long body": ("support.prompty", lambda n: "---\nname: support\nmodel:\n  api: chat\n  parameters:\n"
                           "    max_tokens: 400\n---\nsystem:\n" + "Never guess a price. {{page}}\n" * (n // 30)),
    "dotprompt: long body": ("support.prompt", lambda n: "---\nmodel: googleai/gemini-2.0-flash\nconfig:\n"
                             "  maxOutputTokens: 400\n---\n"
                             + "{{#each docs}}{{this}}{{/each}} Never guess.\n" * (n // 46)),
    "semantic kernel: long prompt": ("Plugin/Answer/skprompt.txt", lambda n: "{{$history}} Never guess. {{$page}}\n"
                                     * (n // 36)),
    "text: one long line": ("prompts/system.txt", lambda n: "Never guess a price. " * (n // 21)),
}


def _peak_mb(field: str) -> float:
    with open("/proc/self/status") as status:
        match = re.search(rf"{field}:\s+(\d+)", status.read())
    return int(match.group(1)) / 1024 if match else 0.0


def measure(name: str, size: int, queue: multiprocessing.Queue) -> None:
    """In a fresh process: lint and price one generated file; CPU seconds and peak memory."""
    from fuzz import every_rule_linter

    from ctxlint import tokens
    from ctxlint.cost import Pricer
    from ctxlint.frontends import format_for

    filename, make = SHAPES[name]
    data = make(size).encode("utf-8")
    linter = every_rule_linter(ROOT / "benchmarks")
    settings = linter.settings
    for encoding in tokens.ENCODINGS:
        tokens.get_encoding(encoding)
    linter.lint_bytes(b"Hello.\n", "warm.j2", "warm.j2", "jinja")
    fmt = format_for(filename, settings)
    assert fmt is not None, filename
    base = _peak_mb("VmRSS")
    with open("/proc/self/clear_refs", "w") as handle:
        handle.write("5")
    started = time.process_time()
    findings = linter.lint_bytes(data, filename, filename, fmt)
    priced = time.process_time()
    parsed = linter.parse_bytes(data, filename, filename)
    if parsed is not None:
        Pricer(linter).file_cost(filename, filename, parsed)  # as `ctxlint cost` prices it
    cpu = (priced - started, time.process_time() - priced)
    codes: dict[str, int] = {}
    for finding in findings:
        codes[finding.code] = codes.get(finding.code, 0) + 1
    notices = parsed.notices if parsed is not None else []
    queue.put((fmt, len(data), cpu, _peak_mb("VmHWM"), base, codes, notices))


def run_command(args: list[str], cwd: Path) -> tuple[float, float]:
    """CPU seconds (user and system) and peak resident MB of one ctxlint command."""
    process = subprocess.Popen([sys.executable, "-m", "ctxlint", *args], cwd=cwd, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, env={**os.environ, "PYTHONPATH": str(ROOT)})
    _, status, usage = os.wait4(process.pid, 0)  # the child's own resource use, as Popen.wait cannot give
    process.returncode = os.waitstatus_to_exitcode(status)
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def main_cli(names: list[str], size: int) -> int:
    over = 0
    print(f"{'shape':38}{'bytes':>11}{'check s':>9}{'MB':>6}{'cost s':>8}{'MB':>6}")
    for name in names:
        filename, make = SHAPES[name]
        with tempfile.TemporaryDirectory() as directory:
            path = Path(directory) / filename
            path.parent.mkdir(parents=True, exist_ok=True)
            data = make(size).encode("utf-8")
            path.write_bytes(data)
            check = run_command(["check", "--no-cache", "--preview", "--select", "ALL", "--confidence", "low",
                                 filename], Path(directory))
            cost = run_command(["cost", filename], Path(directory))
        commands = (("check", check), ("cost", cost))
        crossed = [f"{what} {seconds:.1f} s" for what, (seconds, _) in commands if seconds > SECONDS_LIMIT]
        crossed += [f"{what} {mb:.0f} MB" for what, (_, mb) in commands if mb > MEMORY_LIMIT_MB]
        over += bool(crossed)
        flag = "  OVER: " + ", ".join(crossed) if crossed else ""
        print(f"{name:38}{len(data):>11,}{check[0]:>9.2f}{check[1]:>6.0f}{cost[0]:>8.2f}{cost[1]:>6.0f}{flag}")
    print(f"files with a command over {SECONDS_LIMIT:.0f} s or {MEMORY_LIMIT_MB} MB: {over}")
    return 1 if over else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=1_000_000, help="bytes per file (default 1,000,000)")
    parser.add_argument("--only", help="only the shapes whose name contains this")
    parser.add_argument("--cli", action="store_true", help="run ctxlint check and ctxlint cost as commands")
    args = parser.parse_args(argv)
    if args.cli:
        return main_cli([name for name in SHAPES if not args.only or args.only in name], args.size)
    context = multiprocessing.get_context("spawn")
    over = 0
    print(f"{'shape':38}{'format':>16}{'bytes':>11}{'lint s':>8}{'price s':>8}{'peak MB':>9}{'before':>8}  findings")
    for name in SHAPES:
        if args.only and args.only not in name:
            continue
        queue = context.Queue()
        process = context.Process(target=measure, args=(name, args.size, queue))
        process.start()
        fmt, size, cpu, peak, base, codes, notices = queue.get()
        process.join()
        lint, price = cpu
        crossed = [f"{what} {seconds:.1f} s" for what, seconds in (("lint", lint), ("price", price))
                   if seconds > SECONDS_LIMIT]
        crossed += [f"{peak:.0f} MB"] if peak > MEMORY_LIMIT_MB else []
        over += bool(crossed)
        flag = "  OVER: " + ", ".join(crossed) if crossed else ""
        found = ", ".join(f"{code} x{n:,}" for code, n in sorted(codes.items())) or "none"
        print(f"{name:38}{fmt:>16}{size:>11,}{lint:>8.2f}{price:>8.2f}{peak:>9.0f}{base:>8.0f}  {found}{flag}")
        for notice in notices:
            print(f"{'':38}notice: {notice[:100]}")
    print(f"files with lint or price over {SECONDS_LIMIT:.0f} s, or over {MEMORY_LIMIT_MB} MB: {over}")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
