"""A project helper that cuts the texts it is given (cutcallers.py): one finding where it cuts,
naming as its evidence each call, in any module, whose caller goes on with the cut texts."""

from __future__ import annotations

from pathlib import Path

from projects import check_json, write_package

CLIP = '''\
import numpy as np
import tiktoken

from app.llm import ask_model

enc = tiktoken.get_encoding("cl100k_base")


def clip_texts(request: str, earlier: list[str], max_tokens: int) -> tuple[str, list[str]]:
    """Shorten the request and the earlier turns until the prompt fits."""
    texts = [request, *earlier]
    sizes = [len(enc.encode(t)) for t in texts]
    step = max(sizes) // 16
    while sum(sizes) > max_tokens:
        where = int(np.argmax(sizes))
        tokens = enc.encode(texts[where])
        texts[where] = enc.decode(tokens[: len(tokens) - step])
        sizes[where] = len(enc.encode(texts[where]))
    request, earlier = texts[0], texts[1:]
    return request, earlier


def ask_within(request: str, earlier: list[str]) -> str:
    request, earlier = clip_texts(request, earlier, 3000)
    return ask_model(request, history=earlier)
'''

SUMMARY = '''\
import logging

from app.clip import clip_texts
from app.llm import ask_model


def summarise(paper: str, notes: list[str]) -> str:
    prompt, notes = clip_texts(f"Summarise this paper:\\n{paper}", notes, max_tokens=2000)
    return ask_model(prompt, history=notes)


def measure(paper: str, notes: list[str]) -> int:
    _, kept = clip_texts(paper, notes, max_tokens=2000)
    logging.info("kept %s", kept)
    return len(kept)


def discard(paper: str, notes: list[str]) -> None:
    _, _ = clip_texts(paper, notes, max_tokens=2000)
'''

LLM = '''\
from openai import OpenAI

client = OpenAI()


def ask_model(prompt: str, history: list[str]) -> str:
    reply = client.chat.completions.create(model="gpt-4o-mini", max_tokens=300,
                                           messages=[{"role": "user", "content": "\\n".join([*history, prompt])}])
    return reply.choices[0].message.content
'''


def test_each_call_that_goes_on_with_the_cut_texts_is_a_place_of_the_finding(tmp_path: Path):
    write_package(tmp_path, {"clip.py": CLIP, "summary.py": SUMMARY, "llm.py": LLM})
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_clip.py").write_text(
        "from app.clip import clip_texts\n\n\ndef test_clip():\n    a, b = clip_texts('x', [], 10)\n    assert a\n")
    [found] = check_json(tmp_path, ".", "CTX205")
    assert (found["path"], found["line"], found["column"], found["kind"]) == ("app/clip.py", 17, 9, "drop-loop")
    assert "cuts tokens off the end of an item" in found["message"]
    places = [(e["path"], e["line"], e["text"]) for e in found["evidence"] if "goes on" in e["text"]]
    assert places == [("app/clip.py", 24, "`ask_within` goes on with the cut texts `clip_texts` gives back"),
                      ("app/summary.py", 8, "`summarise` goes on with the cut texts `clip_texts` gives back")]


def test_a_helper_nothing_goes_on_with_names_no_caller(tmp_path: Path):
    discarding = CLIP.replace("    request, earlier = clip_texts(request, earlier, 3000)",
                              "    _, kept = clip_texts(request, earlier, 3000)\n    print(kept)")
    write_package(tmp_path, {"clip.py": discarding, "llm.py": LLM,
                             "summary.py": SUMMARY.split("def summarise")[0]
                             + "def discard(paper: str, notes: list[str]) -> None:\n"
                               "    _, _ = clip_texts(paper, notes, max_tokens=2000)\n"})
    [found] = check_json(tmp_path, ".", "CTX205")
    assert found["kind"] == "drop-loop" and all("goes on" not in e["text"] for e in found["evidence"])


TIMEOUT = '''\
def with_timeout(func, seconds=30):
    def guarded(*args, **kwargs):
        return func(*args, **kwargs)
    return guarded
'''

KEEP_FIRST = '''\
import tiktoken

from app.timeout import with_timeout

enc = tiktoken.get_encoding("cl100k_base")


def keep_first_entries_(listing: str, limit: int) -> str:
    """Keep the entries, in their order, while they fit the budget."""
    entries = listing.split("\\n\\n")
    kept = entries[0]
    used_tokens = len(enc.encode(kept))
    for entry in entries[1:]:
        entry_tokens = len(enc.encode(entry))
        if used_tokens + entry_tokens > limit:
            break
        kept += "\\n\\n" + entry
        used_tokens += entry_tokens
    return kept


keep_first_entries = with_timeout(keep_first_entries_, seconds=10)
'''

REVIEW = '''\
from app.entries import keep_first_entries
from app.llm import ask_model


class Reviewer:
    def entries_text(self, entries: list[str]) -> str:
        return keep_first_entries("\\n\\n".join(entries), limit=6000)

    def review(self, entries: list[str]) -> str:
        return ask_model(f"Review every entry below:\\n{self.entries_text(entries)}", history=[])
'''


def test_a_budget_loop_names_the_calls_through_a_decorator_applied_by_hand(tmp_path: Path):
    # `keep = with_timeout(keep_)`: other modules call the wrapped name; a caller that returns
    # what it gives back hands it on, and is named too.
    write_package(tmp_path, {"timeout.py": TIMEOUT, "entries.py": KEEP_FIRST, "review.py": REVIEW, "llm.py": LLM})
    [found] = check_json(tmp_path, ".", "CTX205")
    assert (found["path"], found["line"], found["kind"]) == ("app/entries.py", 16, "budget-loop")
    places = [(e["path"], e["line"], e["text"]) for e in found["evidence"] if "goes on" in e["text"]]
    assert places == [("app/review.py", 7,
                       "`entries_text` goes on with the cut texts `keep_first_entries_` gives back")]


def test_a_class_that_keeps_the_function_is_no_decorator(tmp_path: Path):
    # `Tool(fn)` keeps the function: a call of `keep_first_entries(...)` builds no text of it.
    keeping = TIMEOUT.replace("    return guarded\n", "    return seconds\n")
    write_package(tmp_path, {"timeout.py": keeping, "entries.py": KEEP_FIRST, "review.py": REVIEW, "llm.py": LLM})
    [found] = check_json(tmp_path, ".", "CTX205")
    assert found["kind"] == "budget-loop" and all("goes on" not in e["text"] for e in found["evidence"])
