"""Third-party content followed through a project: a process's output read by a runner in
another module that hands over to a second one, and the items of a loop over search results."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from projects import write_files

RUNNER = '''\
import subprocess


def run_piped(command: str) -> tuple[int, str]:
    proc = subprocess.Popen(command, shell=True, stdout=subprocess.PIPE, text=True)
    captured = proc.stdout.read()
    return proc.wait(), captured


def run(command: str) -> tuple[int, str]:
    return run_piped(command)
'''

FIXER = '''\
from openai import OpenAI
from tavily import TavilyClient

from app.runner import run

client = OpenAI()


def explain(command: str) -> str:
    status, out = run(command)
    reply = client.chat.completions.create(
        model="gpt-4o", max_completion_tokens=300,
        messages=[{"role": "user", "content": f"{command} exited with {status} and printed {out} so explain it."}],
    )
    return reply.choices[0].message.content


def plan(topic: str) -> str:
    response = TavilyClient().search(topic)
    notes = ""
    for position, hit in enumerate(response["results"]):
        notes += f"{position}: {hit['content']}\\n"
    reply = client.chat.completions.create(
        model="gpt-4o", max_completion_tokens=300,
        messages=[{"role": "user", "content": f"Plan a report on {topic} from: {notes} Keep it short."}],
    )
    return reply.choices[0].message.content


__all__ = ["explain", "plan"]
'''


def _check(root: Path) -> list[dict]:
    run = subprocess.run([sys.executable, "-m", "ctxlint.cli", "check", "--no-cache", "--output-format", "json",
                          "app/fixer.py"], capture_output=True, text=True, cwd=root)
    assert run.returncode in (0, 1), run.stderr
    return json.loads(run.stdout)


def test_output_of_a_process_and_items_of_search_results_are_followed(tmp_path):
    write_files(tmp_path, {"app/__init__.py": "", "app/runner.py": RUNNER, "app/fixer.py": FIXER})
    found = _check(tmp_path)
    assert [(f["code"], f["line"], f["column"], f["confidence"]) for f in found] == [
        ("CTX401", 13, 92, "high"), ("CTX401", 22, 32, "high")]
    output, hit = found
    assert output["message"].startswith(
        "`out` carries untrusted content (subprocess.Popen(...).stdout in app/runner.py:6, line 10)")
    assert ("app/runner.py", 6) in {(step["path"], step["line"]) for step in output["evidence"]}
    assert hit["message"].startswith(
        "`hit['content']` carries untrusted content (web search results (tavily.TavilyClient().search(...)), line 19)")
    assert [step["text"] for step in hit["evidence"] if step["kind"] == "flow"] == [
        'an item of `enumerate(response["results"])`']


ASKER = '''\
from openai import OpenAI

client = OpenAI()


class Asker:
    def ask(self, prompt: str, model: str) -> str:
        messages = [{"role": "system", "content": "Answer in one line."}, {"role": "user", "content": prompt}]
        return client.chat.completions.create(model=model, max_tokens=200, messages=messages).choices[0].message.content


class SessionAsker(Asker):
    def __init__(self, session: str) -> None:
        self.session = session

    def ask(self, **kwargs) -> str:
        return super().ask(**kwargs)
'''

ASKING_CLI = '''\
import sys

from app.asker import SessionAsker


def main(question: str) -> None:
    piped = sys.stdin.read()
    print(SessionAsker("s1").ask(prompt=f"{piped}\\n\\n{question}", model="gpt-4o-mini"))
    print(SessionAsker("s1").ask(prompt=question, model="gpt-4o-mini"))


main(sys.argv[1])
'''


def test_keyword_passed_on_through_a_methods_kwargs_fills_the_hole_further_in(tmp_path):
    """A method that passes its ``**kwargs`` on (``return super().ask(**kwargs)``): the caller's
    ``prompt=`` fills the hole of the method that sends, and the finding says where it is put."""
    write_files(tmp_path, {"app/__init__.py": "", "app/asker.py": ASKER, "app/cli.py": ASKING_CLI})
    run = subprocess.run([sys.executable, "-m", "ctxlint.cli", "check", "--no-cache", "--output-format", "json",
                          "--select", "CTX401", "app/cli.py"], capture_output=True, text=True, cwd=tmp_path)
    assert run.returncode in (0, 1), run.stderr
    found = json.loads(run.stdout)
    assert [(f["line"], f["column"], f["confidence"]) for f in found] == [(8, 43, "high")]
    assert ("app/asker.py", 8) in {(step["path"], step["line"]) for step in found[0]["evidence"]}


CHECKS = '''\
import subprocess


def lint_report() -> str | None:
    try:
        subprocess.run(["ruff", "check", "."], capture_output=True, text=True, check=True)
        return None
    except subprocess.CalledProcessError as failed:
        return "Lint failed:\\n" + failed.stdout
    except OSError as missing:
        return f"Could not run the linter: {missing.filename}"
'''

REVIEWER = '''\
from openai import OpenAI

from app.checks import lint_report

client = OpenAI()


def review(question: str) -> str:
    report = lint_report()
    note = f"Mind the linter. {report}"
    reply = client.chat.completions.create(
        model="gpt-4o", max_tokens=300,
        messages=[{"role": "system", "content": note},
                  {"role": "user", "content": f"<question>{question}</question>"}],
    )
    return reply.choices[0].message.content


__all__ = ["review"]
'''


def test_output_of_a_failed_process_caught_as_an_exception_is_followed_to_the_message_that_sends_it(tmp_path):
    write_files(tmp_path, {"app/__init__.py": "", "app/checks.py": CHECKS, "app/fixer.py": REVIEWER})
    found = _check(tmp_path)
    # `missing.filename` of an OSError is a path, not content: only the process's output is reported.
    assert [(f["code"], f["line"], f["column"], f["confidence"]) for f in found] == [
        ("CTX401", 10, 31, "high"), ("CTX402", 10, 31, "high")]
    assert found[0]["message"].startswith(
        "`report` carries untrusted content (failed.stdout in app/checks.py:9, line 9)")
    # The text is built on line 10 from what the helper returns (line 9), and sent by the
    # message written on line 13 (the call that sends the request starts on line 11).
    assert [(step["kind"], step["text"], step["line"]) for step in found[1]["evidence"]][-3:] == [
        ("flow", "returned by `lint_report()`", 9),
        ("sink", "interpolated into the system message", 10),
        ("sink", "sent as the system message at line 13", 13)]


SUMMARIZER = '''\
import requests
from openai import OpenAI

client = OpenAI()

SYSTEM = """You answer questions about one web page.

Page:
{page}
"""


def summarize(text: str, question: str) -> str:
    reply = client.chat.completions.create(
        model="gpt-4o", max_tokens=300,
        messages=[{"role": "system", "content": SYSTEM.format(page=text)},
                  {"role": "user", "content": question}])
    return reply.choices[0].message.content


def answer(url: str, question: str) -> str:
    return summarize(requests.get(url, timeout=10).text, question)


__all__ = ["answer"]
'''


def test_a_parameter_formatted_into_the_prompt_of_a_sending_function_carries_what_its_callers_pass(tmp_path):
    # `summarize` sends a request: a call of it is a request of its caller, but that request
    # reads only the parameters the function sends as they are (`question`), not `text`, which it
    # formats into its own prompt first. What the callers pass for `text` is reported there.
    write_files(tmp_path, {"app/__init__.py": "", "app/fixer.py": SUMMARIZER})
    found = _check(tmp_path)
    assert [(f["code"], f["line"], f["column"], f["confidence"], f["kind"]) for f in found] == [
        ("CTX402", 9, 1, "high", "caller-source")]
    assert found[0]["message"].startswith("`page` carries untrusted content (requests.get(...).text, line 22)")
    assert [(step["kind"], step["text"], step["line"]) for step in found[0]["evidence"]][1:3] == [
        ("flow", "passed as `text` by the call at line 22", 22), ("flow", "passed as `page` at app/fixer.py:16", 16)]


POST = '''\
import requests
from openai import OpenAI

client = OpenAI()


def brief(url: str) -> str:
    item = requests.get(url, timeout=10).json()
    prompt = f"Summarize this in a sentence.\\n{item['title']}: {item['body']}\\nBe brief."
    reply = client.chat.completions.create(
        model="gpt-4o-mini", max_tokens=200,
        messages=[{"role": "system", "content": f"You summarize posts like {item['title']} by {item['author']}."},
                  {"role": "user", "content": prompt}],
    )
    return reply.choices[0].message.content
'''


def test_fields_of_one_fetched_item_on_one_line_are_one_finding_naming_the_source_once(tmp_path):
    write_files(tmp_path, {"app/__init__.py": "", "app/fixer.py": POST})
    found = _check(tmp_path)
    assert [(f["code"], f["line"], f["column"]) for f in found] == [
        ("CTX401", 9, 47), ("CTX401", 12, 76), ("CTX402", 12, 76)]
    assert found[0]["message"].startswith(
        "`item['title']` and `item['body']` carry untrusted content (requests.get(...).json(), line 8) with no "
        "trust label")
    assert found[2]["message"].startswith(
        "`item['title']` and `item['author']` carry untrusted content (requests.get(...).json(), line 8) in the "
        "system role")



REBINDING_ASKER = '''\
import requests
from openai import OpenAI

client = OpenAI()


def add_pages(prompt: str, texts: list[str]) -> str:
    for text in texts:
        prompt += f"{text}\\n"
    return prompt


def build(question: str, urls: list[str], prompt: str = "") -> list[dict]:
    prompt = "Answer from the pages below.\\n"
    prompt = add_pages(prompt, [requests.get(url, timeout=10).text for url in urls])
    return [{"role": "system", "content": prompt}, {"role": "user", "content": question}]


def ask(question: str, urls: list[str]) -> str:
    reply = client.chat.completions.create(model="gpt-4o", max_completion_tokens=300,
                                           messages=build(question, urls))
    return reply.choices[0].message.content


__all__ = ["ask"]
'''


def test_a_parameter_bound_again_holds_what_the_helper_adds_over_its_own_loop(tmp_path):
    # `prompt = add_pages(prompt, ...)` binds the parameter again, so the message holds the
    # helper's text, not the caller's default; what the helper adds is read in the helper, where
    # its loop runs over its own parameter (`texts`, not a name the caller has).
    write_files(tmp_path, {"app/__init__.py": "", "app/asker.py": REBINDING_ASKER})
    run = subprocess.run([sys.executable, "-m", "ctxlint.cli", "check", "--no-cache", "--output-format", "json",
                          "--select", "CTX402", "app/asker.py"], capture_output=True, text=True, cwd=tmp_path)
    found = json.loads(run.stdout)
    assert [(f["line"], f["column"], f["confidence"]) for f in found] == [(9, 21, "high")]
    assert found[0]["message"].startswith("`text` carries untrusted content (requests.get(...).text, line 15)")


WRITER_TS = '''\
import OpenAI from "openai";

const client = new OpenAI();

function writerPrompt(context: string): string {
  return `You write the answer from the results.\\n${context}`;
}

export async function answer(question: string, url: string) {
  const page = await (await fetch(url)).text();
  const reply = await client.chat.completions.create({
    model: "gpt-4o",
    max_tokens: 300,
    messages: [
      {
        role: "system",
        content: writerPrompt(page),
      },
      { role: "user", content: question },
    ],
  });
  return reply.choices[0].message.content;
}
'''


def test_the_message_that_sends_a_prompt_built_elsewhere_is_named_where_it_is_written(tmp_path):
    # The prompt's text is written in a helper (line 6) and sent by the system message whose
    # content is given on line 17, not by the call that starts on line 11.
    write_files(tmp_path, {"app/answer.ts": WRITER_TS})
    run = subprocess.run([sys.executable, "-m", "ctxlint.cli", "check", "--no-cache", "--output-format", "json",
                          "--select", "CTX402", "app/answer.ts"], capture_output=True, text=True, cwd=tmp_path)
    found = json.loads(run.stdout)
    assert [(f["line"], f["confidence"]) for f in found] == [(6, "high")]
    assert [(step["kind"], step["text"], step["line"]) for step in found[0]["evidence"]][-2:] == [
        ("sink", "interpolated into the system message", 6),
        ("sink", "sent as the system message at line 17", 17)]


SHOWN = '''\
from dataclasses import dataclass


@dataclass
class Shown:
    kind: str
    content: str

    def render(self, style: str = "markdown") -> str:
        if style == "markdown":
            return self._fenced()
        return f"{self.kind}: {self.content}"

    def _fenced(self) -> str:
        return f"```{self.kind}\\n{self.content}\\n```"
'''

PANE = '''\
import subprocess

from openai import OpenAI

from app.shown import Shown

client = OpenAI()


def capture(pane: str) -> str:
    return subprocess.run(["tmux", "capture-pane", "-p", "-t", pane], capture_output=True, text=True).stdout


def inspect(pane: str) -> str:
    reply = client.chat.completions.create(
        model="gpt-4o", max_tokens=300,
        messages=[{"role": "system", "content": f"Pane:\\n{Shown('output', capture(pane)).render()}"},
                  {"role": "user", "content": "What failed?"}])
    return reply.choices[0].message.content


def inspect_plain(pane: str) -> str:
    shown = Shown(kind="output", content=capture(pane))
    reply = client.chat.completions.create(
        model="gpt-4o", max_tokens=300,
        messages=[{"role": "system", "content": shown.render(style="plain")},
                  {"role": "user", "content": "What failed?"}])
    return reply.choices[0].message.content


__all__ = ["inspect", "inspect_plain"]
'''


def test_a_dataclass_field_read_by_its_method_holds_what_the_object_was_built_with(tmp_path):
    # `Shown(..., capture(pane)).render()` formats `self.content`, a field the dataclass assigns
    # nowhere: it holds the second argument, a process's output. With its default style the method
    # fences it (labelled, but in the system role); asked for the plain style, it is unlabelled too.
    # `self.kind` holds the literal "output" and is no content.
    write_files(tmp_path, {"app/__init__.py": "", "app/shown.py": SHOWN, "app/pane.py": PANE})
    run = subprocess.run([sys.executable, "-m", "ctxlint.cli", "check", "--no-cache", "--output-format", "json",
                          "--select", "CTX401,CTX402", "app/pane.py"], capture_output=True, text=True, cwd=tmp_path)
    found = json.loads(run.stdout)
    assert [(f["code"], f["line"], f["confidence"]) for f in found] == [
        ("CTX402", 17, "high"), ("CTX401", 26, "high"), ("CTX402", 26, "high")]
    assert found[0]["message"].startswith("`self.content` carries untrusted content (subprocess.run(...).stdout")
    assert "kept as `content` of `Shown(...)`" in [step["text"] for step in found[0]["evidence"]]
