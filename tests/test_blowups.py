"""Shapes of input that once took minutes: each is linted at a size past the point where it blew
up, and its work is measured in executed lines (tests/steps.py) at two sizes, four times apart:
linear work grows four times, a quadratic pass sixteen."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from steps import count_steps, growth

from ctxlint import tokens
from ctxlint.catalogue import load_catalogue
from ctxlint.config import Settings
from ctxlint.frontends import format_for, limits

SETTINGS = Settings(root=Path(__file__).parent, preview=True)  # the trust and cache rules are preview rules
LINTER = None


def linter():
    global LINTER
    if LINTER is None:
        from ctxlint.engine import Linter

        LINTER = Linter(SETTINGS, load_catalogue())
        for encoding in tokens.ENCODINGS:
            tokens.get_encoding(encoding)
    return LINTER


def lint(name: str, text: str):
    return linter().lint_text(text, name, name, format_for(name, SETTINGS))


def codes(findings) -> dict[str, int]:
    counted: dict[str, int] = {}
    for finding in findings:
        counted[finding.code] = counted.get(finding.code, 0) + 1
    return counted


# name, the text for n units, n past the point where it once blew up (or the time it took),
# the findings at that size.
SHAPES: dict[str, tuple[str, Callable[[int], str], int, dict[str, int]]] = {
    # 540 KB of unclosed directive comments: 56 s.
    "unclosed directives": ("system.j2", lambda n: "{# ctxlint: ignore[CTX101]\n" * n, 25_000, {"CTX001": 1}),
    # Directives in a Markdown prompt, 500 KB: 12 s. (No model is named: the window is not checked.)
    "directives in Markdown": ("prompts/rules.md", lambda n: "<!-- ctxlint: pinned -->\nNever say it.\n" * n,
                               14_000, {}),
    "unclosed Markdown comments": ("prompts/notes.md", lambda n: "<!-- ctxlint: ignore\n" * n, 25_000, {}),
    # {{ page }} 9,000 times (trust analysis): 34 s.
    "untrusted slots": ("answer.j2", lambda n: "Use the search results {{ page }}\n" * n, 10_000, {"CTX401": 10_000}),
    # user: role lines 16,000 times: 13 s.
    "role lines": ("chat.j2", lambda n: "user:\nhello\n" * n, 20_000, {}),
    # Very many slots in history loops, Semantic Kernel prompts, repeated constraints.
    "history loops": ("loop.j2", lambda n: "{% for m in history %}{{ m }} Never lie.{% endfor %}\n" * n, 1_500,
                      {"CTX301": 1_500}),
    "Semantic Kernel slots": ("Plugin/Fn/skprompt.txt", lambda n: "{{$history}} Never lie. Web page: {{$page}}\n" * n,
                              1_500, {"CTX401": 1_500}),
    "repeated constraints": ("rules.j2", lambda n: ("You must never lie. Always be kind.\n{% for d in docs %}{{ d }}"
                                                    "{% endfor %}\nYou must never lie! Always be kind.\n") * n,
                             1_500, {"CTX401": 1_500}),
    # (No front matter: a template the code sends with its own settings, so no CTX201.)
    "Handlebars loops": ("digest.prompt", lambda n: "{{#each history}}{{this}} Never lie.{{/each}}\n" * n, 1_500,
                         {"CTX301": 1_500}),
    # 15,000 expression tags that never close (`}~}`), 665 KB: 120 s, in the regular expression that
    # measured template code (found by benchmarks/fuzz.py; work in C, which the step count misses).
    "unclosed expression tags": ("answer.j2", lambda n: "<document>{{ document | e }~}</document>\n" * n, 20_000,
                                 {"CTX001": 1}),
    # A misspelt suppression on each of 5,000 lines, 210 KB: 10 s, indexing the file's lines once
    # per suppression to offer its removal (found by benchmarks/fuzz.py).
    "unused suppressions": ("system.j2", lambda n: "Be brief. {# ctxlint: ignore[CTX1O1] #}\n" * n, 5_000,
                            {"CTX002": 5_000}),
    # A Dotprompt role marker on each of 50,000 lines, 0.8 MB: over 120 s, every marker after only
    # whitespace retagging the whole message built so far (found by benchmarks/fuzz.py).
    "role markers in a row": ("answer.prompt", lambda n: "---\nconfig:\n  maxOutputTokens: 400\n---\n"
                              + '{{role "system"}}\n' + '{{role "user"}}\n' * n + "Answer briefly.\n{{question}}\n",
                              20_000, {}),
    # Fences that open and never close (```json, closed only by a bare ``` line) in a Markdown prompt,
    # 200 KB: 18 s, each opening line searching the rest of the file for its closing line (found by
    # benchmarks/fuzz.py; work in C, which the step count misses).
    "unclosed Markdown fences": ("prompts/support.md", lambda n: "Reply like this:\n```json\n"
                                 '{"answer": "{timestamp}"}\n' * n, 6_000, {"CTX101": 1}),
    # A `$page` placeholder on each of 150,000 lines of a text prompt, 940 KB: 9 s and 275 MB, a slot
    # and a piece of text each (found by benchmarks/fuzz.py).
    "placeholders in a text prompt": ("prompts/browse.txt", lambda n: "Summarise the page for the user.\n"
                                      + "$page\n" * n, 60_000, {"CTX001": 1}),
    # Constraints before a loop and restatements after it, 400 of each (29 KB): 6 s, comparing every
    # restatement with every constraint word by word (CTX302).
    "restatements after constraints": ("rules.j2", lambda n: "".join(f"Never mention product {i} to the user.\n"
                                                                     for i in range(n))
                                       + "{% for d in documents %}{{ d }}{% endfor %}\n"
                                       + "".join(f"Never mention item {i} to anyone.\n" for i in range(n)),
                                       2_000, {"CTX302": 2_000, "CTX401": 1}),
    # 8,000 tags never closed and as many closing tags of another name around a slot, 56 KB: 13 s,
    # each closing tag searching every open one (CTX401's trust labels).
    "unmatched tags": ("page.j2", lambda n: "<x>" * n + "Web page: {{ page }}\n" + "</y>" * n + "\n", 10_000,
                       {"CTX401": 1}),
    # 2,400 suppressions on one line, 70 KB: 10 s, each finding on the line matched against every one.
    "suppressions on one line": ("rules.j2", lambda n: "Web page: {{ now() }}\n" + "{# ctxlint: ignore[CTX101] #}" * n
                                 + "\n", 5_000, {"CTX002": 5_000}),
    # 20,000 suppressions without codes on one line, 420 KB: 19 s, each unused-suppression finding on
    # the line listing every suppression that covers it (found by benchmarks/fuzz.py, issue 25).
    "bare suppressions on one line": ("rules.j2", lambda n: "Be brief.\n" + "{# ctxlint: ignore #}" * n + "\n",
                                      20_000, {}),
    # A slot and then one line of 20,000 spaces: 13 s in the regular expression that finds BEGIN/END
    # marker lines, its two runs of blanks splitting the line every way (found by benchmarks/fuzz.py;
    # work in C, which the step count misses).
    "a line of spaces": ("writer.j2", lambda n: "Write about {{ context }}" + " " * n + "\n", 200_000, {}),
    "request messages": ("request.json", lambda n: '{"model": "gpt-4o", "max_tokens": 512, "messages": ['
                         + ",".join(['{"role": "user", "content": "Web page: {{ page }} Never lie."}'] * n) + "]}",
                         1_500, {"CTX401": 1_500}),
}


@pytest.mark.parametrize("shape", SHAPES)
def test_a_shape_that_blew_up_is_linted_at_scale(shape):
    name, make, size, expected = SHAPES[shape]
    assert codes(lint(name, make(size))) == expected


@pytest.mark.parametrize("shape", SHAPES)
def test_the_work_on_a_shape_grows_linearly(shape):
    name, make, _, _ = SHAPES[shape]
    linter()  # loaded before anything is counted
    lint(name, make(2))
    assert growth(lambda n: lambda: lint(name, make(n)), 40) < 1.3


def test_more_segments_than_the_bound_are_a_located_finding():
    text = "{{ name }}\n" * (limits.MAX_SEGMENTS // 2 + 10)  # a slot and a line break: two segments a line
    (finding,) = lint("big.j2", text)
    assert (finding.code, finding.span.line, finding.span.column) == ("CTX001", limits.MAX_SEGMENTS // 2 + 1, 1)
    assert finding.message == limits.too_many_segments()


def test_more_template_code_than_jinja_reads_in_bounded_time_is_a_located_finding():
    tag = "{% set stamp = datetime.now().isoformat() %}\n"  # found by benchmarks/fuzz.py: 550 KB, 9 s
    count = limits.MAX_TEMPLATE_CODE // (len(tag) - 1) + 1
    (finding,) = lint("big.j2", tag * count * 2)
    assert (finding.code, finding.span.line, finding.span.column) == ("CTX001", count, 1)
    assert finding.message == limits.too_much_template_code()


def test_more_strings_than_the_bound_in_a_request_file_are_a_located_finding():
    count = limits.MAX_SEGMENTS + 5
    text = '{"model": "gpt-4o", "messages": [\n' + ",\n".join(['{"role": "user", "content": "hi"}'] * count) + "]}"
    (finding,) = lint("request.json", text)
    assert (finding.code, finding.span.line) == ("CTX001", limits.MAX_SEGMENTS + 2)


def test_a_name_assigned_thousands_of_times_is_looked_up_in_log_time():
    """Found by benchmarks/fuzz.py: a TypeScript module that assigns one name before each of
    thousands of calls, each call looking it up among all the assignments (5 s for 900 KB)."""

    def module(n: int) -> str:
        call = ('prompt = "Answer in one line.";\nclient.chat.completions.create({ model: "gpt-4o", max_tokens: 10, '
                'messages: [{ role: "system", content: prompt }] });\n')
        return 'import OpenAI from "openai";\nconst client = new OpenAI();\nlet prompt = "Be terse.";\n' + call * n

    assert codes(lint("chat.ts", module(3_000))) == {"CTX202": 3_000}
    lint("chat.ts", module(2))
    assert growth(lambda n: lambda: lint("chat.ts", module(n)), 100) < 1.2


# --- Python values built from themselves: each line doubles the value ---------------------------

CLIENT = 'from openai import OpenAI\nclient = OpenAI()\nMESSAGES = [{"role": "user", "content": "Hi"}]\n' \
         'PROMPT = "Be terse and answer from the page."\n'
SEND = ('client.chat.completions.create(model="gpt-4o", max_tokens=500, '
        'messages=[{"role": "system", "content": PROMPT}])\n')
DOUBLINGS = {
    "+": "PROMPT = PROMPT + PROMPT\n",
    "f-string": 'PROMPT = f"{PROMPT}{PROMPT}"\n',
    ".format": 'PROMPT = "{}{}".format(PROMPT, PROMPT)\n',
    "%": 'PROMPT = "%s%s" % (PROMPT, PROMPT)\n',
    "join": 'PROMPT = "".join([PROMPT, PROMPT])\n',
    "+=": "PROMPT += PROMPT\n",
    "list +": "MESSAGES = MESSAGES + MESSAGES\n",
}


def doubled(kind: str, times: int) -> str:
    send = SEND.replace('[{"role": "system", "content": PROMPT}]', "MESSAGES") if kind == "list +" else SEND
    return CLIENT + DOUBLINGS[kind] * times + send


@pytest.mark.parametrize("kind", DOUBLINGS)
def test_a_value_doubled_forty_times_is_a_slot_not_a_materialised_copy(kind):
    """`PROMPT = PROMPT + PROMPT` 16-20 times took minutes and a gigabyte: 2**40 would not end."""
    findings = lint("app.py", doubled(kind, 40))
    assert all(f.code != "CTX001" for f in findings)
    if kind == "+=":
        return  # each line looks the name up among all before it: bounded by the module's budget (below)
    # Past the bound (about twelve doublings) each further line costs the same.
    assert growth(lambda n: lambda: lint("app.py", doubled(kind, n)), 40) < 1.5


def test_a_doubling_value_keeps_its_text_while_it_is_small():
    (finding,) = lint("app.py", CLIENT + "PROMPT = PROMPT + PROMPT\n" * 3 + SEND.replace("500", "5"))
    assert finding.code == "CTX202"  # eight copies of the instruction, read as text: too little room


def test_thousands_of_self_additions_spend_the_budget_with_a_notice():
    from ctxlint.frontends import python

    text = CLIENT + "PROMPT += PROMPT\n" * 4_000 + SEND
    parsed = python.parse_file(text, "app.py")
    assert parsed.errors == [] and len(parsed.requests) == 1
    assert parsed.notices and parsed.notices[0].startswith("stopped following values after")
    steps, _ = count_steps(lambda: python.parse_file(text, "app.py"))
    assert steps < 60 * len(text)


# --- Python modules of hundreds of call sites, and what CPython's parser refuses ------------------

def generated_module(functions: int) -> str:
    return 'from openai import OpenAI\nclient = OpenAI()\n' + "".join(
        f'def answer_{i}(page):\n    prompt = "Answer question {i} from the page: " + page\n'
        f'    return client.chat.completions.create(model="gpt-4o", max_tokens=5, '
        f'messages=[{{"role": "user", "content": prompt}}])\n' for i in range(functions))


def test_a_large_generated_module_is_linted_in_linear_work():
    """0.5-0.8 MB generated modules took 22-38 s and 700 MB."""
    assert codes(lint("client.py", generated_module(1_000))) == {"CTX202": 1_000, "CTX401": 1_000}
    lint("client.py", generated_module(2))
    assert growth(lambda n: lambda: lint("client.py", generated_module(n)), 20) < 1.3


@pytest.mark.parametrize("shape, line", [
    ("x = (a" + ".a" * 20_000, 2), ("x = (a" + "()" * 20_000, 2), ("x = (a" + " + a" * 20_000, 2),
    # CPython's parser gives up on these ("too complex") without saying where: the module's first line.
    ("x = " + "-" * 20_000 + "1", 1), ("x = " + "not " * 20_000 + "1", 1)])
def test_long_chains_with_or_without_a_syntax_error_are_one_located_finding(shape, line):
    """libcst's error recovery was quadratic on these (8 KB: 7-13 s) and `-` 5,000 times took 1.4 GB."""
    text = 'from openai import OpenAI\n' + shape + "\n"
    (finding,) = lint("app.py", text)
    assert (finding.code, finding.span.line) == ("CTX001", line)
    lint("app.py", 'from openai import OpenAI\n' + shape[:40] + "\n")
    assert growth(lambda n: lambda: lint("app.py", 'from openai import OpenAI\n' + shape[: 10 * n] + "\n"), 100) < 1.5


# --- a directive that names thousands of codes (found by benchmarks/fuzz.py) --------------------

def test_a_suppression_naming_thousands_of_codes_is_checked_in_linear_work():
    def template(n: int) -> str:
        return "{# ctxlint: ignore[CTX101, " + "not-a-rule, " * n + "CTX999] #}\nYou are terse.\n"

    (finding,) = lint("system.j2", template(20_000))
    assert finding.code == "CTX002"
    assert "`not-a-rule`, `not-a-rule`" in finding.message and "and 19,991 more are not rule codes" in finding.message
    lint("system.j2", template(2))
    assert growth(lambda n: lambda: lint("system.j2", template(n)), 200) < 1.3


def test_the_unused_suppression_fixes_index_the_file_once(monkeypatch):
    # Each unused suppression offers a fix that removes it; building the file's line index for
    # each one made 5,000 of them take 10 s (found by benchmarks/fuzz.py). Work in a comprehension
    # escapes the step count, so this counts the indexes built.
    from ctxlint import directives

    built = []

    class CountingText(directives._Text):
        def __init__(self, text: str, path: str) -> None:
            built.append(path)
            super().__init__(text, path)

    monkeypatch.setattr(directives, "_Text", CountingText)
    findings = lint("system.j2", "Be brief. {# ctxlint: ignore[CTX1O1] #}\n" * 200)
    assert codes(findings) == {"CTX002": 200}
    assert len(built) <= 2  # the scan's index and the fixes' index


def tool_catalogue(tools: int) -> str:
    unit = ("  - name: find_{i}\n    description: Find record {i} and return its state.\n"
            "    input_schema:\n      type: object\n      properties:\n        key: {{type: string}}\n"
            "      required: [key]\n")
    return "tools:\n" + "".join(unit.format(i=i) for i in range(tools))


@pytest.mark.parametrize("model", ["gpt-4o", "claude-sonnet-4-5"])
def test_each_tool_of_a_catalogue_is_rendered_once_per_lint(monkeypatch, model):
    # Four tool checks and the budget check each measure the catalogue, by bytes and then by
    # tokens; rendering every tool in each of those passes made a 1 MB catalogue take 3.5 s.
    from ctxlint.analysis.accounting import tools as accounting

    rendered: list[str | None] = []

    def counted(render):
        def counting(tool):
            rendered.append(tool.name)
            return render(tool)
        return counting

    monkeypatch.setattr(accounting, "_render_function", counted(accounting._render_function))
    monkeypatch.setattr(accounting, "_json_tool", counted(accounting._json_tool))
    findings = lint("tools.yaml", f"model: {model}\n" + tool_catalogue(600))
    assert codes(findings) == {"CTX502": 1, "CTX503": 1}
    assert sorted(rendered) == sorted(f"find_{i}" for i in range(600))


def test_the_kept_renderings_are_bounded(monkeypatch):
    from ctxlint.analysis.accounting import tools as accounting

    monkeypatch.setattr(accounting, "RENDERED_CHARS", 2_000)
    lint("tools.yaml", tool_catalogue(600))
    kept = sum(len(r.text) + sum(len(t) for _, t in r.fields) for _, r in accounting._RENDERED.values())
    assert 0 < kept <= 2_000


def collections_during(work: Callable[[], object]) -> int:
    import gc

    started: list[int] = []

    def record(phase, info):
        if phase == "start":
            started.append(info["generation"])

    gc.callbacks.append(record)
    try:
        work()
    finally:
        gc.callbacks.remove(record)
    return len(started)


def test_the_collector_runs_once_per_file_linted_and_priced():
    # The request model lives until the file is done; a collector running all along walked it
    # again and again (a third of the check time of a 1 MB request file).
    from ctxlint.cost import Pricer

    text = SHAPES["request messages"][1](3_000)
    linter()  # loaded before anything is counted
    assert collections_during(lambda: lint("request.json", text)) <= 1
    parsed = linter().parse_bytes(text.encode(), "request.json", "request.json")
    assert collections_during(lambda: Pricer(linter()).file_cost("request.json", "request.json", parsed)) <= 1


def test_more_placeholders_than_the_bound_in_a_text_prompt_are_a_located_finding():
    count = limits.MAX_SEGMENTS // 2 + 10  # a slot and a line break: two segments a line
    (finding,) = lint("prompts/browse.txt", "Summarise the page.\n" + "$page\n" * count)
    # The text before each placeholder and the placeholder: the last one read is on the line below.
    assert (finding.code, finding.span.line, finding.span.column) == ("CTX001", limits.MAX_SEGMENTS // 2 + 2, 1)
    assert finding.message == limits.too_many_segments()
    from ctxlint.frontends import text as plain

    assert not plain.parse_file("Summarise the page.\n" + "$page\n" * (count - 20), "prompts/browse.txt").errors


@pytest.mark.parametrize(("comment", "tail"), [
    ("{# ctxlint: ignore[CTX101, random-id }} ", ""),  # brackets that never close, on one line: 13 s for 200 KB
    ("{# ctxlint: ignore[CTX101 #} ", "]"),  # brackets that close only after the comment does
    ("{# ctxlint: untrusted=page #} ", ""),
])
def test_directives_on_one_long_line_are_each_read_to_their_comment_end(monkeypatch, comment, tail):
    # Found by benchmarks/fuzz.py: each directive was read (in a regular expression, which the step
    # count misses) to the end of its line, so this counts the characters each reading may see.
    from ctxlint import directives

    seen = []

    class Counting:
        def match(self, text: str, pos: int = 0, endpos: int | None = None):
            seen.append((len(text) if endpos is None else endpos) - pos)
            return pattern.match(text, pos, endpos)

    pattern = directives._DIRECTIVE
    monkeypatch.setattr(directives, "_DIRECTIVE", Counting())
    text = "Answer briefly.\n" + comment * 5_000 + tail + "\n"
    found = directives.scan(text, "jinja")
    assert len(seen) == 5_000 and sum(seen) <= len(text)
    assert len(found.malformed) + len(found.suppressions) == (0 if "untrusted" in comment else 5_000)


def test_a_budget_directive_whose_comment_never_closes_is_not_split_into_words(monkeypatch):
    # Found by benchmarks/fuzz.py: `ctxlint: key-field` whose quotes and comment closed 640 KB later:
    # shlex took 7.5 s to split its words.
    from ctxlint.budget import policy

    split = policy.shlex.split
    read: list[int] = []

    def counting(words: str, *args, **kwargs):
        read.append(len(words))
        return split(words, *args, **kwargs)

    monkeypatch.setattr(policy.shlex, "split", counting)
    text = ("{# ctxlint: budget notes policy=summarize #}\n{# ctxlint: key-field \"rate limit"
            + "You are the planning agent.\n" * 10_000 + '" segment=notes regex="\\b429\\b" #}\n{{ notes }}\n')
    (finding,) = lint("agent.j2", text)
    assert finding.code == "CTX206" and finding.span.line == 2
    assert f"past the {policy.MAX_DIRECTIVE_CHARS:,} a directive is read to" in finding.message
    assert max(read) <= policy.MAX_DIRECTIVE_CHARS


def test_a_slot_repeated_thousands_of_times_is_judged_by_its_names_once(monkeypatch):
    """The trust rules ask about every slot; what a slot's names say (matched against dozens of
    globs in several lists) is worked out once per request for each distinct slot."""
    from ctxlint.analysis import trust

    judged = []
    named = trust._named
    monkeypatch.setattr(trust, "_named", lambda *arguments: judged.append(1) or named(*arguments))
    text = "Use the search results {{ page }}\n" * 3_000 + "{% for d in documents %}{{ d.text }}{% endfor %}\n" * 1_000
    assert codes(lint("answer.j2", text)) == {"CTX401": 4_000}
    assert 2 <= len(judged) <= 6  # two distinct slots; the three trust rules may each ask once


def test_restatement_comparison_past_its_bound_stops_with_a_notice(monkeypatch):
    from ctxlint.checks import layout

    monkeypatch.setattr(layout, "DRIFT_WORK", 500)
    make = SHAPES["restatements after constraints"][1]
    linter().notices.clear()
    found = codes(lint("rules.j2", make(200)))
    assert 0 < found["CTX302"] < 200
    (notice,) = [n.message for n in linter().notices if n.message.startswith("CTX302")]
    assert notice.startswith("CTX302: stopped comparing restatements with the constraints before them at line ")
    assert notice.endswith("(after 500 word comparisons); later drift is not reported")


def test_lines_without_a_word_are_not_candidate_constraints_unless_pinned():
    """A generated prompt of 180,000 `---` lines spent seconds locating each as a sentence."""
    from ctxlint import directives
    from ctxlint.analysis import constraints

    def sentences(text: str) -> list[tuple[str, bool]]:
        (request,) = linter().parse_bytes(text.encode(), "rules.j2", "rules.j2").requests
        found = directives.scan(text, "jinja", "rules.j2")
        return [(c.text, c.pinned) for c in constraints.sentences(request, found)]

    separators = "Never guess a price.\n" + "---\n*** ===\n" * 5_000 + "Answer in English. {{ question }}\n"
    assert sentences(separators) == [("Never guess a price.", False), ("Answer in English.", False)]
    pinned = "{# ctxlint: pinned #}\n---\n{# ctxlint: end #}\nNever guess. {{ question }}\n"
    assert sentences(pinned) == [("---", True), ("Never guess.", False)]


def references_fanning_out(n: int) -> str:
    """A tool schema whose composition reaches one shared definition along 6**n paths."""
    import json

    defs = {f"D{i}": {"anyOf": [{"$ref": f"#/$defs/D{i + 1}"}] * 6, "properties": {f"p{i}": {"type": "string"}}}
            for i in range(n)}
    defs[f"D{n}"] = {"type": "object", "properties": {"last": {"type": "string"}}}
    schema = {"$ref": "#/$defs/D0", "$defs": defs, "required": ["last", "missing"]}
    return json.dumps([{"name": "lookup", "description": "Look it up.", "inputSchema": schema}])


def test_schema_composition_is_read_once_per_definition():
    """`allOf`/`anyOf` branches and `$ref`s make a graph: each definition is read once, not once a path."""
    (finding,) = lint("tools.json", references_fanning_out(25))  # 6**25 paths
    assert finding.code == "CTX505" and "lists `missing`, not defined" in finding.message
    assert growth(lambda n: lambda: lint("tools.json", references_fanning_out(n)), 7) < 1.3


def test_the_command_line_on_bare_suppressions_on_one_line_works_in_linear_steps(tmp_path):
    """`ctxlint check` as a subprocess on 2,000 and 8,000 bare suppressions on one line: the same
    output, and four times the input costs about four times the steps (issue 25)."""
    import subprocess
    import sys

    script = (
        "import sys; sys.path.insert(0, sys.argv[1]); from steps import count_steps; from ctxlint.cli import main\n"
        "for n in (2000, 8000):\n"
        "    open(f'{n}.j2', 'w').write('Be brief.\\n' + '{# ctxlint: ignore #}' * n + '\\n')\n"
        "main(['check', '--no-cache', '--select', 'ALL', '--preview', '2000.j2'])  # modules loaded before counting\n"
        "small, code = count_steps(lambda: main(['check', '--no-cache', '--select', 'ALL', '--preview', '2000.j2']))\n"
        "large, _ = count_steps(lambda: main(['check', '--no-cache', '--select', 'ALL', '--preview', '8000.j2']))\n"
        "print(f'exit {code}, growth {large / (small * 4):.1f}')\n"
    )
    done = subprocess.run([sys.executable, "-c", script, str(Path(__file__).parent)], cwd=tmp_path,
                          capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[:3] == ["All checks passed (1 file checked)."] * 3
    exit_code, growth_text = lines[3].split(", ")
    assert exit_code == "exit 0" and float(growth_text.removeprefix("growth ")) < 1.3, lines[3]
