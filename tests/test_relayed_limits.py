"""A request object built without its limit (CTX201's object-unset) whose sending method hands the
limit on in a dict of keyword arguments to a backend of unknown class
(``self.engine.complete(**kwargs)``): each backend of the project that takes the limit out of its
``**kwargs`` into the request it builds is named as a step of the finding, and a backend that
falls back on a limit of its own is not."""

from __future__ import annotations

from pathlib import Path

from tests.projects import check_json, write_package

JOB = '''\
class Job:
    def __init__(self, messages: list, temperature: float = 0.0, max_tokens: int | None = None) -> None:
        self.messages = messages
        self.temperature = temperature
        self.max_tokens = max_tokens
'''

DISPATCH = '''\
class Dispatcher:
    def __init__(self, engine) -> None:
        self.engine = engine

    def run(self, job):
        options = {"messages": job.messages, "temperature": job.temperature}
        if job.max_tokens is not None:
            options["max_tokens"] = job.max_tokens
        return self.engine.complete(**options)
'''

POSTING = '''\
import requests


class PostingEngine:
    def complete(self, messages, **kwargs):
        limit = kwargs.pop("max_tokens", None)
        body = {"model": "chat-large", "messages": messages}
        if limit is not None:
            body["max_tokens"] = limit
        return requests.post("https://llm.internal/v1/chat/completions", json=body, timeout=60).json()
'''

CAPPED = '''\
import requests


class CappedEngine:
    def complete(self, messages, **kwargs):
        body = {"model": "chat-small", "messages": messages, "max_tokens": kwargs.get("max_tokens", 2048)}
        return requests.post("https://llm.internal/v1/chat/completions", json=body, timeout=60).json()
'''

TRIAGE = '''\
from app.job import Job


def triage(dispatcher, history: list):
    job = Job(messages=[{"role": "system", "content": "Sort the ticket by urgency."}, *history], temperature=0.2)
    return dispatcher.run(job)
'''


def test_each_backend_the_limit_is_relayed_to_is_a_step(tmp_path: Path) -> None:
    write_package(tmp_path, {"job.py": JOB, "dispatch.py": DISPATCH, "posting.py": POSTING, "capped.py": CAPPED,
                             "triage.py": TRIAGE})
    found = [f for f in check_json(tmp_path, ".", "CTX201") if f["kind"] == "object-unset"]
    assert [(f["path"], f["line"]) for f in found] == [("app/triage.py", 5)]
    places = [(e["path"], e["line"]) for e in found[0]["evidence"]]
    assert ("app/dispatch.py", 8) in places  # the dispatcher writes the field into its kwargs
    assert ("app/posting.py", 7) in places  # the body the posting backend writes the limit into
    assert not any(path == "app/capped.py" for path, _ in places)  # a limit of its own: 2,048
