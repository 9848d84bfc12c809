"""A line of a batch job whose body sets no output limit (CTX201 batch-line, batchlines.py): the
place the body is written, as a dict literal or a `dict(...)` call, in the function or at the top
of the module, is a step of the finding."""

from __future__ import annotations

from pathlib import Path

from projects import check_json, write_package

LINE = '''\
import json

{module_body}

def request_line(number: int, ticket: str) -> dict:
{body}
    return {{"custom_id": f"ticket-{{number}}", "method": "POST", "url": "/v1/chat/completions", "body": body}}


def write_requests(tickets: list[str], path: str) -> None:
    with open(path, "w", encoding="utf-8") as out:
        for number, ticket in enumerate(tickets):
            out.write(json.dumps(request_line(number, ticket)) + "\\n")
'''

CALLED = '''\
    body = dict(
        model="gpt-4.1-mini",
        messages=[{"role": "system", "content": "Label the ticket's urgency."}, {"role": "user", "content": ticket}],
    )'''


def _steps(found: dict) -> list[tuple[int, str]]:
    return [(e["line"], e["text"]) for e in found["evidence"] if "is written here" in e["text"]]


def test_a_body_built_with_dict_is_named_where_it_is_written(tmp_path: Path) -> None:
    write_package(tmp_path, {"triage.py": LINE.format(module_body="", body=CALLED)})
    [found] = check_json(tmp_path, "app/triage.py", "CTX201")
    assert (found["line"], found["kind"]) == (10, "batch-line")
    assert _steps(found) == [(6, "the body `body` is written here with no output limit")]


def test_a_body_written_at_the_top_of_the_module_is_named_there(tmp_path: Path) -> None:
    module_body = ('body = {"model": "gpt-4.1-mini", "messages": [{"role": "system", "content": '
                   '"Label the ticket\'s urgency."}]}\n')
    one_line = '    """One line of the batch, the same body for every ticket."""'
    write_package(tmp_path, {"triage.py": LINE.format(module_body=module_body, body=one_line)})
    [found] = check_json(tmp_path, "app/triage.py", "CTX201")
    assert found["kind"] == "batch-line"
    assert _steps(found) == [(3, "the body `body` is written here with no output limit")]


def test_a_body_built_with_dict_and_a_limit_is_fine(tmp_path: Path) -> None:
    limited = CALLED.replace('model="gpt-4.1-mini",', 'model="gpt-4.1-mini", max_completion_tokens=20,')
    write_package(tmp_path, {"triage.py": LINE.format(module_body="", body=limited)})
    assert check_json(tmp_path, "app/triage.py", "CTX201") == []
