"""Web pages known by the name of the call that fetches them, followed through a project: a
browse module whose engine is a plug-in picked at run time, and an answering module that keeps
the pages by address and formats them into its system prompt."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from projects import write_files

from ctxlint.frontends.code.words import WEB_FETCHERS

BROWSE = '''\
import importlib


class Browse:
    def __init__(self, engine: str):
        self.run_func = importlib.import_module(engine).open_pages

    async def fetch_web_contents(self, *urls: str) -> list:
        return await self.run_func(*urls)
'''

ANSWER = '''\
from app.browse import Browse

ANSWER_SYSTEM_PROMPT = """Answer the question from the pages below.

{context}

Keep the answer short."""


class Answer:
    def __init__(self, engine: str):
        self.browse = Browse(engine)

    async def run(self, question: str, urls: list[str]) -> str:
        context = await self._context(urls)
        return await self._reply(question, context)

    async def _context(self, urls: list[str]) -> str:
        pages = await self.browse.fetch_web_contents(*urls)
        kept = {}
        for page in pages:
            kept[page.url] = page.inner_text
        return "\\n\\n".join(kept.values())

    async def _reply(self, question: str, context: str) -> str:
        system = ANSWER_SYSTEM_PROMPT.format(context=context)
        return await self._ask(question, [system])
'''


def test_pages_of_a_fetch_with_a_plug_in_engine_reach_the_system_prompt(tmp_path: Path) -> None:
    main = "import asyncio\n\nfrom app.answer import Answer\n\nprint(asyncio.run(Answer('web').run(input(), [])))\n"
    write_files(tmp_path, {"app/__init__.py": "", "app/browse.py": BROWSE, "app/answer.py": ANSWER,
                       "app/main.py": main})
    run = subprocess.run([sys.executable, "-m", "ctxlint.cli", "check", "--no-cache", "--output-format", "json",
                          "app/answer.py"], capture_output=True, text=True, cwd=tmp_path)
    assert run.returncode in (0, 1), run.stderr
    found = [f for f in json.loads(run.stdout) if f["code"] == "CTX402"]
    assert [(f["line"], f["column"], f["confidence"], f["kind"]) for f in found] == [
        (5, 1, "medium", "format-site-weak-source-and-name")]
    assert found[0]["message"].startswith(
        "`context` looks like third-party content (a web page (browse.fetch_web_contents(...)) in app/answer.py:19,"
        " line 19) in the system role")


@pytest.mark.parametrize(("name", "fetches"), [
    ("fetch_web_contents", True), ("_scrape_website", True), ("fetch_url", True), ("download_html", True),
    ("get_page_text", True), ("crawl", True),
    # paging through an API, an address, a scraping job's description: no page's text
    ("get_page", False), ("fetch_page", False), ("get_url", False), ("get_urls", False),
    ("describe_scrape_job", False),
])
def test_names_of_calls_that_fetch_web_pages(name: str, fetches: bool) -> None:
    assert bool(WEB_FETCHERS.search(name)) is fetches
