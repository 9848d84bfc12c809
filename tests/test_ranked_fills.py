"""Budget loops over items the code shows ranked (rankedfills.py): a caller in another module
that passes retrieved items makes the fill a selection; one caller that passes items in no known
order, or a sort by time after the retrieval, keeps the loop a cut."""

from __future__ import annotations

from pathlib import Path

from projects import check_json, write_package

PACKING = '''\
def pack(notes: list[str], token_budget: int) -> str:
    text, spent = "", 0
    for note in notes:
        spent += len(note) // 4
        if spent > token_budget:
            break
        text += note + "\\n"
    return text
'''

ANSWER = '''\
from app.packing import pack


def answer(llm, index, question: str) -> str:
    best = index.query(question, top_k=8)
    return llm.generate(question + "\\n" + pack([hit.text for hit in best], 3000))
'''

DIARY = '''\
from app.packing import pack


def today(llm, diary: list[str]) -> str:
    return llm.generate(pack(diary, 3000))
'''

RESORTED = '''\
def brief(llm, index, question: str, token_budget: int) -> str:
    found = index.query(question, top_k=8)
    found.sort(key=lambda hit: hit.created_at)
    text, spent = "", 0
    for hit in found:
        spent += len(hit.text) // 4
        if spent > token_budget:
            break
        text += hit.text
    return llm.generate(text)


__all__ = ["brief"]
'''


def _check(root: Path, path: str) -> list[dict]:
    return check_json(root, path, "CTX205")


def test_a_fill_of_items_every_caller_retrieves_is_a_selection(tmp_path):
    write_package(tmp_path, {"packing.py": PACKING, "answer.py": ANSWER})
    [found] = _check(tmp_path, "app/packing.py")
    assert (found["code"], found["line"], found["column"], found["kind"], found["confidence"]) == (
        "CTX205", 6, 13, "ranked-items", "low")
    assert found["message"].startswith("`for note in notes` keeps the ranked items that fit its budget")
    step = found["evidence"][-2]
    assert (step["text"], step["path"], step["line"]) == (
        "`notes` is passed by `answer`, where it is what `query` retrieves: a fill of the best items first, "
        "whose lowest-ranked are left out on purpose", "app/answer.py", 5)


def test_one_caller_that_passes_items_in_no_known_order_keeps_the_cut(tmp_path):
    write_package(tmp_path, {"packing.py": PACKING, "answer.py": ANSWER, "diary.py": DIARY})
    [found] = _check(tmp_path, "app/packing.py")
    assert (found["line"], found["kind"], found["confidence"]) == (6, "budget-loop", "medium")
    assert found["message"].startswith("`for note in notes` stops adding items once its budget is spent")


def test_retrieved_items_sorted_by_time_are_a_cut(tmp_path):
    (tmp_path / "resorted.py").write_text(RESORTED)
    [found] = _check(tmp_path, "resorted.py")
    assert (found["line"], found["kind"], found["confidence"]) == (8, "budget-loop", "medium")


def test_retrieved_items_sorted_again_into_a_new_name_by_position_are_a_cut(tmp_path):
    (tmp_path / "resorted.py").write_text(RESORTED.replace(
        "    found.sort(key=lambda hit: hit.created_at)\n",
        "    found = sorted(found, key=lambda hit: hit.position)\n"))
    [found] = _check(tmp_path, "resorted.py")
    assert (found["line"], found["kind"], found["confidence"]) == (8, "budget-loop", "medium")


def test_a_local_assigned_from_itself_does_not_hide_the_module(tmp_path):
    (tmp_path / "tools.py").write_text('''\
def field(kind: str, note: str) -> dict:
    kind = kind if kind in ("string", "integer") else "string"
    return {"type": kind, "description": note[:200]}


def tool(name: str, summary: str) -> dict:
    return {"name": name, "description": summary[:500], "parameters": {"type": "object", "properties": {}}}
''')
    [found] = _check(tmp_path, "tools.py")
    assert (found["code"], found["line"], found["kind"]) == ("CTX205", 7, "description-cut")
