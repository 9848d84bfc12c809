"""The rows of a database query that asks for no order (queryrows.py, frameworks' ``rows``), and a
web page's template that is not a prompt (cutreach.py)."""

from __future__ import annotations

import ast

import pytest

from ctxlint.frameworks import cached_frameworks, load_framework
from ctxlint.frameworks.entries import FrameworkError
from ctxlint.frontends.python.cutreach import _renders_page
from ctxlint.frontends.python.queryrows import query_rows, unordered_sql, wrapped


@pytest.mark.parametrize(("sql", "unordered"), [
    ("select * from notes where owner = ?", True),
    ("\n  SELECT name FROM tools", True),
    ("-- the saved tools\nselect name from tools", True),
    ("with recent as (select * from notes order by id) select * from recent", True),
    ("select * from turns where thread = (select id from threads order by id limit 1)", True),
    ("select * from notes order by created", False),
    ("SELECT * FROM notes ORDER\n BY created DESC", False),
    ("update notes set seen = 1", False),
    ("insert into notes values (?)", False),
    ("select count(*) from notes where owner = ?", False),
    ("SELECT COUNT(*) AS n, max(created) FROM notes", False),
    ("select owner, count(*) from notes group by owner", True),
    ("select * from notes where id in (\x00)", True),
    ("select * from notes where owner = ? \x00", False),
])
def test_sql_text_with_no_order_by_of_its_own(sql: str, unordered: bool) -> None:
    assert unordered_sql(sql) is unordered


def _call(code: str) -> ast.Call:
    node = ast.parse(code).body[0].value  # type: ignore[attr-defined]
    assert isinstance(node, ast.Call)
    return node


def _text(node: ast.expr) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


@pytest.mark.parametrize(("code", "rows"), [
    ("Note.objects.filter(owner=user)", True),
    ("Note.objects.all()", True),
    ("Note.objects.filter(owner=user).values('title')", True),
    ("session.query(Note)", True),
    ("session.query(Note).filter_by(owner=user).all()", True),
    ("db.execute('select * from notes')", True),
    ("db.execute('select * from notes').fetchall()", True),
    ("Note.objects.filter(owner=user).order_by('created')", False),
    ("Note.objects.get(pk=key)", False),
    ("Note.objects.filter(owner=user).first()", False),
    ("Note.objects.filter(owner=user).count()", False),
    ("db.execute('select * from notes order by id')", False),
    ("db.query(sql)", False),  # SQL text not shown
    ("session.query(NAMES)", False),  # a constant, not a model class
    ("results.filter(keep)", False),  # a receiver not shown to be a query
])
def test_what_is_a_query_and_what_orders_it(code: str, rows: bool) -> None:
    catalogue = cached_frameworks().rows

    def receiver_rows(node: ast.expr) -> bool:
        return isinstance(node, ast.Call) and query_rows(node, catalogue, _text, receiver_rows, lambda model: False)

    assert query_rows(_call(code), catalogue, _text, receiver_rows, lambda model: False) is rows


def test_a_wrapper_that_makes_an_awaitable_of_list() -> None:
    def qualified(node: ast.AST | None) -> str | None:
        return node.id if isinstance(node, ast.Name) else None

    rows = cached_frameworks().rows
    assert wrapped(_call("sync_to_async(list)(query)"), rows, qualified) == "list"
    assert wrapped(_call("run_later(list)(query)"), rows, qualified) is None
    assert wrapped(_call("list(query)"), rows, qualified) is None


def test_the_rows_entry_of_a_framework_file_is_checked(tmp_path) -> None:
    path = tmp_path / "db.yaml"
    path.write_text("framework: db\nimports: [db]\nrows:\n  managers: [objects]\n  builders: [filter]\n")
    assert load_framework(path).rows.builders == ("filter",)  # type: ignore[union-attr]
    path.write_text("framework: db\nimports: [db]\nrows:\n  sorted_by: [order_by]\n")
    with pytest.raises(FrameworkError, match="sorted_by"):
        load_framework(path)


@pytest.mark.parametrize(("code", "page"), [
    ('templates.TemplateResponse(request, name="settings.html", context=config)', True),
    ('templates.TemplateResponse("index.HTM", config)', True),
    ('templates.render("summary.prompt", notes=notes)', False),
    ("prompt_template.format(notes=notes)", False),
])
def test_a_web_pages_template_is_not_a_prompt(code: str, page: bool) -> None:
    assert _renders_page(_call(code)) is page
