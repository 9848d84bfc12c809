"""Function summaries kept between files answer the same whichever question came first."""

from __future__ import annotations

from ctxlint.frontends.code.summaries import SummaryMemo, new_file


def test_an_answer_that_relied_on_an_unfinished_question_is_not_kept():
    memo: SummaryMemo[str] = SummaryMemo()
    read: list[str] = []

    def outer() -> str | None:  # `outer` calls `inner`, which calls `outer` back
        read.append("outer")
        return memo.get("inner", inner, lambda: False) or "outer's own"

    def inner() -> str | None:
        read.append("inner")
        return memo.get("outer", outer, lambda: False)

    assert memo.get("outer", outer, lambda: False) == "outer's own"
    # `inner` was answered while `outer` was open (nothing through it): right for that question only
    assert memo.kept == {"outer": "outer's own"}
    # asked on its own, `inner` is read again and sees `outer`'s finished answer
    assert memo.get("inner", inner, lambda: False) == "outer's own"
    assert read == ["outer", "inner", "inner"]
    assert memo.kept == {"outer": "outer's own", "inner": "outer's own"}


def test_an_answer_cut_short_by_a_bound_serves_this_file_only():
    memo: SummaryMemo[str] = SummaryMemo()
    spent = [True]
    read: list[str] = []

    def sends() -> str | None:
        read.append("f")
        return None if spent[0] else "sends"

    assert memo.get("f", sends, lambda: spent[0]) is None
    assert memo.get("f", sends, lambda: spent[0]) is None  # the same file: not read again
    assert "f" not in memo.kept and read == ["f"]
    new_file()  # the next file may be given more
    spent[0] = False
    assert memo.get("f", sends, lambda: spent[0]) == "sends"
    assert memo.kept == {"f": "sends"} and read == ["f", "f"]
    # a found answer cut short is kept for this file only too (a field it could not read)
    assert memo.get("g", lambda: "sends, settings unread", lambda: True) == "sends, settings unread"
    assert "g" not in memo.kept
    new_file()
    assert memo.get("g", lambda: "sends, settings read", lambda: False) == "sends, settings read"
