"""Shapes of loops that keep or drop the items of a collection: the statements a loop runs, what
it adds, which end of what it iterates comes first, and the item a statement drops from an end.
Shared by the cut sites, the overflow handlers and the order sites of the Python front-end.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from fnmatch import fnmatchcase

from ctxlint.frontends.python.calls import last_name
from ctxlint.frontends.python.cutmarkers import LOGGING, assigned_to_name, logs
from ctxlint.frontends.python.cuts import HISTORY_NAMES, fills_what_is_left
from ctxlint.frontends.python.values import Binding
from ctxlint.markers import mentions_cut

SIZE_WORDS = ("token", "char", "length", "_len", "size", "budget")
# What a running count is called (``total_tokens += n`` counts, it does not add an item).
COUNTS = (*SIZE_WORDS, "total", "count", "num", "sum", "used", "spent", "cost")

def over_in_body(test: ast.expr) -> bool | None:
    """Whether a budget test is true when the budget is exceeded (``used > limit``: the loop stops
    in its body), false when it fits (``used + n <= limit``: it stops in the ``else``), None when
    the test does not say."""
    compare = next((n for n in ast.walk(test) if isinstance(n, ast.Compare)), None)
    if compare is None:
        return None
    if isinstance(compare.ops[0], (ast.Gt, ast.GtE)):
        return True
    return False if isinstance(compare.ops[0], (ast.Lt, ast.LtE)) else None


def _only_logged(statements: list[ast.stmt]) -> set[str]:
    """The names the statements read only inside calls of a logger."""
    inside_logs: set[int] = set()
    for statement in statements:
        for call in ast.walk(statement):
            if logs(call):
                inside_logs.update(id(n) for n in ast.walk(call))
    reads: dict[str, bool] = {}
    for statement in statements:
        for name in ast.walk(statement):
            if isinstance(name, ast.Name) and isinstance(name.ctx, ast.Load):
                reads[name.id] = reads.get(name.id, True) and id(name) in inside_logs
    return {name for name, logged in reads.items() if logged}


# A function called to write the note of a cut (`_truncation_marker(size, kept_count=...)`).
_NOTE_MAKER = re.compile(r"(?:truncat|omit|elid)\w*(?:marker|note|notice|message|msg)|"
                         r"(?:marker|note|notice|message|msg)\w*(?:truncat|omit|elid)", re.IGNORECASE)


def says_cut(statements: list[ast.stmt]) -> bool:
    """Whether the statements write a note of a cut: text that says so, or a call of a function
    named for making one. The text of an assertion, an error or a log is said to no model, nor is
    text kept in a name that only a log reads (``snippet = f"{text[:1000]}\n...\n"`` for a debug line)."""
    logged = _only_logged(statements)
    pending: list[ast.AST] = list(statements)
    while pending:
        node = pending.pop()
        if isinstance(node, (ast.Assert, ast.Raise)) or (isinstance(node, ast.Assign) and all(
                isinstance(target, ast.Name) and target.id in logged for target in node.targets)):
            continue
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and mentions_cut(node.value):
            return True
        if isinstance(node, ast.Call):
            called = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if called in LOGGING:
                continue
            if _NOTE_MAKER.search(called):
                return True
        pending.extend(ast.iter_child_nodes(node))
    return False


# A flag named for a cut (`truncated`, `was_truncated`, `omitted`, `has_more`).
_CUT_FLAG = re.compile(r"(?:^|_)(?:truncated|omitted|clipped|elided|has_more|more_available)$", re.IGNORECASE)


def flags_cut(statements: list[ast.stmt], fn: ast.AST | None) -> bool:
    """Whether the statements set a flag named for a cut (``truncated = True``) that the function
    hands back (``return text, truncated``, ``{"truncated": truncated}``): its caller is told."""
    flags = {target.id for node in statements if isinstance(node, ast.Assign)
             and isinstance(node.value, ast.Constant) and node.value.value is True
             for target in node.targets if isinstance(target, ast.Name) and _CUT_FLAG.search(target.id)}
    if not flags or fn is None:
        return False
    return any(isinstance(name, ast.Name) and name.id in flags for held in ast.walk(fn)
               if isinstance(held, (ast.Return, ast.Dict, ast.keyword)) for name in ast.walk(held))


def loop_body(loop: ast.For | ast.AsyncFor | ast.While) -> Iterator[ast.stmt]:
    """The statements a loop runs, through ``if``, ``try`` and ``with`` but not inner loops."""
    return statements_run(loop.body)


def run_while(loop: ast.While) -> tuple[ast.expr, list[ast.stmt]]:
    """The test a ``while`` loop repeats on and the statements it repeats: its own, or, for a
    ``while True:`` whose body is one ``if T: ... else: break`` (or starts with ``if T: break``),
    or a ``while items:`` with an ``if T: break`` in its body, T and what runs while it holds (or
    until it does) after it: the same loop, written with its test inside."""
    body = loop.body
    if isinstance(loop.test, (ast.Name, ast.Attribute)):
        # `while history: ... if <fits>: break ... history.pop(0)`: a loop over what is left that
        # stops once the rest fits repeats while it does not
        for index, statement in enumerate(body):
            if isinstance(statement, ast.If) and not statement.orelse and len(statement.body) == 1 \
                    and isinstance(statement.body[0], ast.Break):
                return statement.test, body[index + 1:]
        return loop.test, body
    if not (isinstance(loop.test, ast.Constant) and loop.test.value is True and body and isinstance(body[0], ast.If)):
        return loop.test, body
    first = body[0]
    if len(body) == 1 and len(first.orelse) == 1 and isinstance(first.orelse[0], ast.Break):
        return first.test, first.body
    if len(first.body) == 1 and isinstance(first.body[0], ast.Break) and not first.orelse:
        return first.test, body[1:]
    return loop.test, body


def called_as_test(test: ast.expr) -> list[ast.Call]:
    """The calls whose result is the test itself, or one of its `and`/`or`/`not` operands."""
    if isinstance(test, ast.BoolOp):
        return [call for value in test.values for call in called_as_test(value)]
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return called_as_test(test.operand)
    return [test] if isinstance(test, ast.Call) else []


def retried_cut(parents: dict[int, ast.AST], node: ast.expr) -> bool:
    """``content = content[:n]`` again inside ``while content == "": ...``: a retry of a cut
    made before the loop, reported there."""
    assigned = assigned_to_name(node, parents)
    if assigned is None:
        return False
    statement, name = assigned
    loop = parents.get(id(statement))
    return isinstance(loop, ast.While) and any(
        isinstance(n, ast.Name) and n.id == name for n in ast.walk(loop.test))


def statements_run(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements of ``body`` and those it runs through ``if``, ``try`` and ``with``, not inner loops."""
    stack: list[ast.stmt] = list(reversed(body))
    while stack:
        statement = stack.pop()
        yield statement
        if isinstance(statement, ast.If):
            stack.extend(reversed([*statement.body, *statement.orelse]))
        elif isinstance(statement, (ast.With, ast.AsyncWith)):
            stack.extend(reversed(statement.body))
        elif isinstance(statement, ast.Try):
            stack.extend(reversed([*statement.body, *statement.orelse, *statement.finalbody]))


def adds(statement: ast.stmt) -> bool:
    """``kept.append(item)``, ``text += line``, ``result = line + result``; not a running count
    (``total_tokens += n``)."""
    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
        func = statement.value.func
        return isinstance(func, ast.Attribute) and func.attr in ("append", "extend", "insert", "appendleft")
    target: ast.expr
    if isinstance(statement, ast.AugAssign) and isinstance(statement.op, ast.Add):
        target, value = statement.target, statement.value
    elif isinstance(statement, ast.Assign) and isinstance(statement.value, ast.BinOp) and \
            isinstance(statement.value.op, ast.Add):
        target, value = statement.targets[0], statement.value
    else:
        return False
    if any(isinstance(n, ast.JoinedStr) or (isinstance(n, ast.Constant) and isinstance(n.value, str))
           for n in ast.walk(value)):
        return True
    name = (target.id if isinstance(target, ast.Name) else getattr(target, "attr", "")).lower()
    return bool(name) and not any(w in name for w in COUNTS)


def skips_rest(branch: list[ast.stmt], test: ast.expr, loop: ast.For | ast.AsyncFor) -> ast.Continue | None:
    """``if total_tokens > budget: log(...); continue`` where the loop adds to ``total_tokens``: once
    the running total passes the budget it stays past it, and every later item is skipped as a
    ``break`` would drop it (a test of one item's own size skips that item alone)."""
    stop = next((s for s in branch if isinstance(s, ast.Continue)), None)
    if stop is None or not all(s is stop or only_logs(s) for s in branch):
        return None
    tested = {n.id for n in ast.walk(test) if isinstance(n, ast.Name)}
    running = {s.target.id for s in loop_body(loop) if isinstance(s, ast.AugAssign) and isinstance(s.op, ast.Add)
               and isinstance(s.target, ast.Name)}
    return stop if tested & running else None


def fitted_only(statement: ast.If, built: set[str]) -> ast.expr | None:
    """``if count(prompt) + count(item) < budget: prompt += item`` with no ``else``: each item that no
    longer fits the text being built (the test reads it) is left out, and the loop goes on; the
    test when it is that, None otherwise."""
    if statement.orelse or over_in_body(statement.test) is not False or not any(adds(s) for s in statement.body):
        return None
    tested = {n.id for n in ast.walk(statement.test) if isinstance(n, ast.Name)}
    return statement.test if tested & built else None


def records_keys(loop: ast.For | ast.AsyncFor, fn: ast.FunctionDef | ast.AsyncFunctionDef | None) -> bool:
    """``for name, entry in items.items(): ... kept_names.append(name)`` where the function returns
    ``kept_names`` beside the text: it hands its callers the keys of the items it kept (or left out),
    so they can say what the budget dropped (``"Files left out: ..."``); the loop's cut is theirs to mark."""
    if fn is None or not isinstance(loop.target, ast.Tuple):
        return False
    keys = {e.id for e in loop.target.elts[:1] if isinstance(e, ast.Name)}
    records = {ast.unparse(target) for statement in loop_body(loop)
               if (target := added_to(statement)) is not None and isinstance(statement, ast.Expr)
               and isinstance(statement.value, ast.Call) and statement.value.args
               and isinstance(statement.value.args[0], ast.Name) and statement.value.args[0].id in keys}
    returned = {ast.unparse(e) for r in ast.walk(fn) if isinstance(r, ast.Return) and r.value is not None
                for e in (r.value.elts if isinstance(r.value, ast.Tuple) else [r.value])}
    return bool(records & returned)


def added_to(statement: ast.stmt) -> ast.expr | None:
    """The collection ``kept.append(item)`` (or ``insert``, ``extend``) adds to."""
    if adds(statement) and isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call) and \
            isinstance(statement.value.func, ast.Attribute):
        return statement.value.func.value
    return None


def built_names(loop: ast.For | ast.AsyncFor | ast.While) -> set[str]:
    """The local names a loop adds to (``kept.append(item)``, ``text += chunk``)."""
    names = set()
    for statement in loop_body(loop):
        if adds(statement):
            target = added_to(statement) or (statement.target if isinstance(statement, ast.AugAssign) else
                                             statement.targets[0] if isinstance(statement, ast.Assign) else None)
            if isinstance(target, ast.Name):
                names.add(target.id)
    return names


def counts_items(test: ast.expr, collections: set[str]) -> bool:
    """``len(kept) >= max_turns``: the number of items one of ``collections`` holds compared with
    a limit (not with 0 or 1: a search for the first item that matches)."""
    for node in ast.walk(test):
        if not isinstance(node, ast.Compare) or not all(isinstance(op, (ast.Gt, ast.GtE)) for op in node.ops):
            continue
        counted, limit = node.left, node.comparators[-1]
        if isinstance(limit, ast.Constant) and isinstance(limit.value, int) and limit.value <= 1:
            continue
        if isinstance(counted, ast.Call) and isinstance(counted.func, ast.Name) and counted.func.id == "len" and \
                counted.args and ast.unparse(counted.args[0]) in collections:
            return True
    return False


def loop_order(iterated: ast.expr) -> tuple[ast.expr, str]:
    """What a loop iterates and which end of it the items added first come from."""
    keeps = "start"
    while True:
        if isinstance(iterated, ast.Call) and isinstance(iterated.func, ast.Name) and iterated.args and \
                iterated.func.id in ("enumerate", "reversed", "list", "iter"):
            if iterated.func.id == "reversed":
                keeps = "end" if keeps == "start" else "start"
            iterated = iterated.args[0]
        elif isinstance(iterated, ast.Subscript) and isinstance(iterated.slice, ast.Slice) and \
                isinstance(iterated.slice.step, ast.UnaryOp):
            keeps = "end" if keeps == "start" else "start"  # items[::-1]
            iterated = iterated.value
        else:
            return iterated, keeps


def drop_of(statement: ast.stmt) -> tuple[ast.expr, str] | None:
    """An item dropped from a collection, and which end is kept: ``x = x[1:]`` and ``x.pop(0)``
    keep the end, ``x = x[:-1]`` and ``x.pop()`` the start."""
    if isinstance(statement, ast.Assign) and isinstance(statement.value, ast.Subscript) and \
            isinstance(statement.value.slice, ast.Slice):
        cut = statement.value.slice
        if cut.step is None and cut.upper is None and isinstance(cut.lower, ast.Constant) and cut.lower.value in (1, 2):
            return statement.value.value, "end"
        if cut.step is None and cut.lower is None and isinstance(cut.upper, ast.UnaryOp):
            return statement.value.value, "start"
        subject = ast.dump(statement.value.value)
        if cut.step is None and _share_of(cut.upper, subject) and cut.lower is None:
            return statement.value.value, "start"  # `x = x[: len(x) // 2]`: the back half dropped
        if cut.step is None and _share_of(cut.lower, subject) and cut.upper is None:
            return statement.value.value, "end"
        return None
    value = statement.value if isinstance(statement, (ast.Expr, ast.Assign)) else None
    if isinstance(statement, ast.Assign) and any(w in (getattr(t, "id", "") or "").lower() for t in statement.targets
                                                 for w in COUNTS):
        return None  # removed_tokens = counts.pop(): bookkeeping beside the drop
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "popitem" \
            and not value.args and not value.keywords and not _tally(value.func.value):
        return value.func.value, "start"  # a dict's last entry: the first ones are kept
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in ("pop", "popleft"):
        index = value.args[0] if value.args else None
        if index is not None and not (isinstance(index, ast.Constant) and index.value in (0, -1)):
            return None  # cache.pop(key): an entry by its key, not an end of a sequence
        if _tally(value.func.value):
            return None
        first = value.func.attr == "popleft" or (isinstance(index, ast.Constant) and index.value == 0)
        return value.func.value, "end" if first else "start"
    if isinstance(value, ast.Call):  # store.set_docs(key, docs[:-1])
        for arg in value.args:
            if isinstance(arg, ast.Subscript):
                dropped = drop_of(ast.Assign([arg.value], arg))
                if dropped is not None:
                    return dropped
    if isinstance(statement, ast.Delete) and isinstance(statement.targets[0], ast.Subscript):
        target = statement.targets[0]
        kept = _kept_after_delete(target.slice)
        return (target.value, kept) if kept is not None and not _tally(target.value) else None
    return None


def _share_of(bound: ast.expr | None, subject: str) -> bool:
    """Whether ``bound`` is a share of the length of the sequence ``subject`` dumps (``len(x) // 2``)."""
    return isinstance(bound, ast.BinOp) and isinstance(bound.op, (ast.FloorDiv, ast.Div)) \
        and isinstance(bound.left, ast.Call) and isinstance(bound.left.func, ast.Name) and bound.left.func.id == "len" \
        and len(bound.left.args) == 1 and ast.dump(bound.left.args[0]) == subject


def _tally(subject: ast.expr) -> bool:
    """``del self.token_counts[0]`` beside ``del self.history[:2]``: the sizes kept beside the items."""
    name = (subject.attr if isinstance(subject, ast.Attribute) else getattr(subject, "id", "")).lower()
    return "count" in name or name.endswith(("sizes", "lengths"))


def _kept_after_delete(index: ast.expr) -> str | None:
    """Which end of a sequence ``del seq[index]`` keeps: ``del h[0]``, ``del h[1]`` (the oldest turn
    after a system message) and ``del h[:2]`` keep the end; ``del h[-1]`` and ``del h[-2:]`` the start;
    an index the code computes says neither."""
    if isinstance(index, ast.Slice):
        if index.step is not None:
            return None
        if index.lower is None and index.upper is not None and not _negative(index.upper):
            return "end"
        if index.upper is None and index.lower is not None and _negative(index.lower):
            return "start"
        return None
    if isinstance(index, ast.Constant) and isinstance(index.value, int) and index.value in (0, 1):
        return "end"
    return "start" if _negative(index) else None


def _negative(node: ast.expr) -> bool:
    return isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub)


def only_logs(statement: ast.stmt) -> bool:
    """``logger.warning(...)``, ``print(...)``: a statement that only writes to a log."""
    return isinstance(statement, ast.Expr) and logs(statement.value)


def logs_only(statement: ast.stmt) -> bool:
    """A log call, or an ``if`` whose every branch only logs (``if len(kept) < len(items):
    logger.info("Truncated ...")``): a note for whoever reads the log, not for the model."""
    if isinstance(statement, ast.If):
        return all(logs_only(s) for s in (*statement.body, *statement.orelse))
    return only_logs(statement)


def history_name(name: str) -> bool:
    last = name.rsplit(".", 1)[-1].lower()
    return bool(last) and any(fnmatchcase(last, p) for p in HISTORY_NAMES)


def cuts_last_item(branch: list[ast.stmt], parents: dict[int, ast.AST]) -> bool:
    """``parts.append(block[:limit - used]); break``: the branch adds the item that does not fit
    cut to what is left of the budget, reported as that cut (``last-item-cut``)."""
    return any(isinstance(n, ast.Subscript) and fills_what_is_left(n, parents)
               for statement in branch for n in ast.walk(statement))


def counted_in_tokens(binding: Binding | None) -> bool:
    """Whether a name holds what a call named for counting tokens returns (``cost =
    count_tokens(rendered)``): a size in tokens, whatever the name says."""
    value = binding.value if binding is not None and not binding.extras else None
    return isinstance(value, ast.Call) and counts_tokens(value.func)


def counts_tokens(func: ast.expr) -> bool:
    """A call named for counting tokens (``len_tokens``, ``count_tokens``, ``num_tokens_from_messages``,
    ``tokenizer.num_tokens``): what it returns is a size in tokens."""
    last = (func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else "").lower()
    return "token" in last and any(w in last for w in ("len", "count", "num"))


def encoded(value: ast.expr) -> bool:
    """Whether ``value`` is a text encoded into tokens or bytes (``enc.encode(text)``, ``tok.tokenize(text)``):
    its length is a size."""
    return isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) \
        and value.func.attr in ("encode", "tokenize", "encode_ordinary") and bool(value.args)


# The calls that add an item to a list or a set.
ITEM_ADDS = ("append", "extend", "insert", "update")


def called_name(call: ast.Call) -> str:
    return last_name(call.func) or ""


def added_name(call: ast.Call) -> str | None:
    """``lines.append(x)``: the name of the list added to."""
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr in ITEM_ADDS and isinstance(func.value, ast.Name):
        return func.value.id
    return None


def added_names(body: list[ast.stmt]) -> set[str]:
    """The names a loop's body adds each item to: ``text += ...``, ``lines.append(...)``, also
    under an ``if`` or a ``with`` in it."""
    names: set[str] = set()
    for statement in block_statements(body):
        if isinstance(statement, ast.AugAssign) and isinstance(statement.op, ast.Add) \
                and isinstance(statement.target, ast.Name):
            names.add(statement.target.id)
        elif isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
            receiver = added_name(statement.value)
            if receiver is not None and called_name(statement.value) != "update":
                names.add(receiver)
    return names


def block_statements(body: list[ast.stmt]) -> list[ast.stmt]:
    """The statements of a block and of the ``if``, ``with`` and ``try`` blocks in it."""
    found: list[ast.stmt] = []
    for statement in body:
        found.append(statement)
        if isinstance(statement, (ast.If, ast.With, ast.AsyncWith, ast.Try)):
            inner = [*statement.body, *getattr(statement, "orelse", []), *getattr(statement, "finalbody", [])]
            found.extend(block_statements(inner))
    return found


def yields_in(body: list[ast.stmt]) -> bool:
    """Whether a loop's body yields (a generator that gives its items in the loop's order)."""
    return any(isinstance(s, ast.Expr) and isinstance(s.value, (ast.Yield, ast.YieldFrom))
               for s in block_statements(body))


def breaks_both_ways(branch: list[ast.stmt]) -> ast.Break | None:
    """``elif not kept: kept.append(first[:n]); break`` then ``else: break``: a branch that is one
    ``if`` whose every way ends the loop ends it as a ``break`` would (the last one is returned)."""
    if len(branch) != 1 or not isinstance(branch[0], ast.If) or not branch[0].orelse:
        return None
    ends = [ways[-1] for ways in (branch[0].body, branch[0].orelse)]
    nested = breaks_both_ways(branch[0].orelse) if not isinstance(ends[1], ast.Break) else ends[1]
    return nested if isinstance(ends[0], ast.Break) and isinstance(nested, ast.Break) else None
