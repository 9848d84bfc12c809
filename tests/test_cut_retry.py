"""A cut made again on a retry (retries.py): one finding where the text is first cut, with the
retry as a step of its evidence, so both places that leave the text cut are shown."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

FETCH = '''\
import httpx

KEEP_CHARS = 6000


def fetch_pages(urls: list[str]) -> list[str]:
    pages = []
    for url in urls:
        body = httpx.get(url, timeout=10).text
        body = body[:KEEP_CHARS]
        while not body:
            body = httpx.get(url, timeout=10).text
            body = body[:KEEP_CHARS]
        pages.append(body)
    return pages
'''


def test_a_cut_made_again_on_a_retry_is_a_step_of_the_first_cut(tmp_path: Path) -> None:
    (tmp_path / "fetch.py").write_text(FETCH)
    run = subprocess.run([sys.executable, "-m", "ctxlint.cli", "check", "--no-cache", "--output-format", "json",
                          "--select", "CTX205", "--confidence", "low", "fetch.py"],
                         capture_output=True, text=True, cwd=tmp_path)
    assert run.returncode == 1, run.stderr
    [found] = json.loads(run.stdout)
    assert (found["code"], found["line"], found["column"], found["kind"]) == ("CTX205", 10, 16, "raw-output-cut")
    assert found["message"].startswith("`body[:KEEP_CHARS]` cuts the text to its first 6,000 characters and leaves "
                                       "nothing in its place")
    retries = [(e["kind"], e["text"], e["line"]) for e in found["evidence"] if "retry" in e["text"]]
    assert retries == [("flow", "`body[:KEEP_CHARS]` cuts it again on a retry, with no marker either", 13)]
