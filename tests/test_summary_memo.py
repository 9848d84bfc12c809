"""Function summaries kept between files answer the same whichever question came first."""

from __future__ import annotations

from ctxlint.frontends.code.summaries import SummaryMemo


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


def test_an_answer_cut_short_by_the_budget_is_worked_out_again():
    memo: SummaryMemo[str] = SummaryMemo()
    spent = [True]
    assert memo.get("f", lambda: None, lambda: spent[0]) is None
    assert "f" not in memo.kept
    spent[0] = False
    assert memo.get("f", lambda: "sends", lambda: spent[0]) == "sends"
    assert memo.kept == {"f": "sends"}
    # a found answer is kept even when the budget ran out after it was found
    assert memo.get("g", lambda: "sends too", lambda: True) == "sends too"
    assert memo.kept["g"] == "sends too"
