"""Loops that stop adding items once a budget is spent, as the Python front-end's cut sites read them.

``for (const doc of docs) { if (used >= maxTokens) break; kept.push(doc); used += count(doc); }``
keeps the items that fit and drops every later one; so does ``if (fits) { kept.unshift(m) } else
{ break }``, and a ``continue`` with only a log beside it when the loop adds to the running total it
tests (once past the budget it stays past it). Nothing tells the model the rest was left out,
unless the branch that stops, or the code after the loop, writes a note (``"[3 more omitted]"``).

The budget must be a size: in tokens by a name (``usedTokens``, ``this.maxTokens``) or a call
counting them (``countTokens(text)``), anywhere; in characters (``chars``, ``size``, ``budget``)
only in a module that builds prompts. A count of items (``results.length >= 5``) is a choice of
how many, not a cut. Items that come ranked (search results, retrieved documents, a collection
sorted before the loop) are the best that fit: kept apart as a ``ranked-loop``.

The other way round, ``while (usedTokens > budget) { messages.splice(1, 1); ... }`` drops items
(``shift``, ``pop``, ``splice``, ``x = x.slice(1)``) until the text fits: a ``drop-loop``, unless
a note of what was dropped is written in the loop or after it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from fnmatch import fnmatchcase

from ctxlint.frontends.code.words import EXAMPLE_NAMES, RANKED_WORDS, is_ranked
from ctxlint.frontends.typescript.history_cuts import HISTORY_WORDS
from ctxlint.frontends.typescript.knowledge import FUNCTIONS, Node, snake
from ctxlint.frontends.typescript.logged_cuts import log_call
from ctxlint.frontends.typescript.syntax import enclosing, walk
from ctxlint.frontends.typescript.unit import Module
from ctxlint.markers import mentions_cut
from ctxlint.model import Cut, Evidence, EvidenceKind, Observation, Source, SourceKind

_LOOPS = ("for_statement", "for_in_statement")
_ADDERS = ("push", "unshift")
_COMPARISONS = ("<", "<=", ">", ">=")
# What a size in characters is called (with `token`, the names of a budget).
_SIZE_WORDS = ("char", "size", "budget", "_len", "length")
# What a running count is called: adding to it counts, it keeps no item.
_COUNTS = ("token", "char", "length", "_len", "size", "budget", "total", "count", "num", "sum", "used", "spent")
_LOOP = re.compile(r"\b(?:for|while)\s*(?:await\s*)?\(")
# What the room left is called: `remaining < needed` holds while the text is over its budget.
_ROOM_WORDS = ("remaining", "available", "left", "budget", "limit", "max")
# What a flag that records a cut is called (`didPrune`, `wasTruncated`).
_CUT_FLAG = re.compile(r"truncat|prun|trimm|omit|dropp")
# A bound this small counts items (`i > 3`), not a size.
_LEAST_BUDGET = 50


def budget_loops(m: Module, context: bool) -> list[Observation]:
    """Each loop of the module that adds items and stops once a size budget is spent, or drops
    them until the text fits."""
    if _LOOP.search(m.src.text) is None:
        return []  # no loop to read: the tree is not walked
    found = []
    for loop in walk(m.root):
        observation = _budget_loop(m, loop, context) if loop.type in _LOOPS else \
            _drop_loop(m, loop, context) if loop.type == "while_statement" else None
        if observation is not None:
            found.append(observation)
    return found


def _budget_loop(m: Module, loop: Node, context: bool) -> Observation | None:
    body = m.field(loop, "body")
    if body is None:
        return None
    statements = list(_statements(body))
    built = {name for s in statements for name in [_added_to(m, s)] if name is not None}
    iterated = m.field(loop, "right") if loop.type == "for_in_statement" else m.field(loop, "condition")
    if not built or iterated is None or _after_says_cut(m, loop):
        return None
    if any(fnmatchcase(snake(name).rsplit(".", 1)[-1], pattern) for pattern in EXAMPLE_NAMES
           for name in (m.code(iterated), *built)):
        return None  # few-shot examples kept to a budget: a model expects no complete set of them
    running = {m.code(m.field(s.named_children[0], "left")) for s in statements if s.type == "expression_statement"
               and s.named_children and s.named_children[0].type == "augmented_assignment_expression"
               and m.code(m.field(s.named_children[0], "operator")) == "+="}
    for statement in statements:
        if statement.type != "if_statement":
            continue
        test = m.field(statement, "condition")
        over = _over_in_body(m, test) if test is not None and _budget_test(m, test, context) else None
        if over is None:
            continue
        branch = m.field(statement, "consequence" if over else "alternative")
        stop = _stop(m, branch, test, running) if branch is not None else None
        if stop is None or test is None:
            continue
        header = " ".join(m.code(loop)[:body.start_byte - loop.start_byte].split())
        ranked = (is_ranked(m.code(iterated)) or _sorted_before(m, loop, iterated)) and not _pinned(m, loop, iterated)
        how = "ranked-loop" if ranked else "budget-loop"
        history = any(w in m.code(iterated).lower() for w in HISTORY_WORDS)
        cut = Cut("items", _keeps(m, loop, iterated), how, history)
        steps = (Evidence(EvidenceKind.FLOW, f"`{header}` adds items one by one", m.span(iterated)),
                 Evidence(EvidenceKind.FLOW, f"`{' '.join(m.code(m.unwrap(test)).split())}` ends the loop",
                          m.span(test)))
        source = Source(SourceKind.TRUNCATION, header, m.span(stop), cut=cut, flow=steps)
        return Observation(how, m.span(stop), "no marker says what the loop left out", source=source)
    return None


def _statements(block: Node) -> Iterator[Node]:
    """The statements a loop runs, through blocks, ``if`` and ``try`` but not inner loops or functions."""
    stack = [block]
    while stack:
        node = stack.pop()
        if node.type in ("statement_block", "else_clause", "finally_clause"):
            stack.extend(reversed(node.named_children))
            continue
        if node.type in FUNCTIONS or node.type == "comment":
            continue
        yield node
        if node.type == "if_statement":
            stack.extend(reversed([c for c in (node.child_by_field_name("consequence"),
                                               node.child_by_field_name("alternative")) if c is not None]))
        elif node.type == "try_statement":
            stack.extend(reversed([c for c in (node.child_by_field_name("body"),
                                               node.child_by_field_name("finalizer")) if c is not None]))


def _added_to(m: Module, statement: Node) -> str | None:
    """The name an item is added to: ``kept.push(item)``, ``text += `...${item}```; not a running
    count (``usedTokens += n``)."""
    if statement.type != "expression_statement" or not statement.named_children:
        return None
    expression = m.unwrap(statement.named_children[0])
    if expression.type == "call_expression":
        callee = m.unwrap(m.field(expression, "function"))
        if callee is not None and callee.type == "member_expression" \
                and m.code(m.field(callee, "property")) in _ADDERS:
            return m.code(m.field(callee, "object"))
        return None
    if expression.type != "augmented_assignment_expression" or m.code(m.field(expression, "operator")) != "+=":
        return None
    target, value = m.field(expression, "left"), m.field(expression, "right")
    if target is None or value is None:
        return None
    if any(n.type in ("string", "template_string") for n in walk(value, into_functions=False)):
        return m.code(target)
    name = snake(m.code(target).rsplit(".", 1)[-1])
    return None if any(w in name for w in _COUNTS) else m.code(target)


def _budget_test(m: Module, test: Node, context: bool) -> bool:
    """A comparison of a size in tokens (or, where the module builds prompts, in characters) with a
    limit: ``usedTokens >= this.maxTokens``, ``countTokens(text) > budget``, ``chars + n > maxChars``."""
    for node in walk(test, into_functions=False):
        operator = m.field(node, "operator") if node.type == "binary_expression" else None
        if operator is None or m.code(operator) not in _COMPARISONS:
            continue
        operands = [m.unwrap(m.field(node, side)) for side in ("left", "right")]
        if any(o.type == "number" and _small(m.code(o)) for o in operands):
            continue  # `tokens.length > 1`: a count, not a budget
        for part in (p for o in operands for p in walk(o, into_functions=False)):
            if part.type == "call_expression" and "count_tokens" in snake(m.code(m.field(part, "function"))):
                return True
            if part.type not in ("identifier", "property_identifier"):
                continue
            name = snake(m.code(part))
            if "token" in name or (context and any(w in name for w in _SIZE_WORDS) and name != "length"
                                   and not name.endswith("count")):
                return True
    return False


def _small(code: str) -> bool:
    try:
        return float(code.replace("_", "")) < _LEAST_BUDGET
    except ValueError:
        return False


def _over_in_body(m: Module, test: Node) -> bool | None:
    """True when the test holds once the budget is passed (``used > max``: the body stops), False when
    it holds while the item fits (``used + n <= max``: the ``else`` stops)."""
    for node in walk(test, into_functions=False):
        operator = m.field(node, "operator") if node.type == "binary_expression" else None
        if operator is not None and m.code(operator) in _COMPARISONS:
            return m.code(operator).startswith(">")
    return None


def _stop(m: Module, branch: Node, test: Node, running: set[str]) -> Node | None:
    """The ``break`` that ends the loop in ``branch``, or its ``continue`` when everything else there
    only logs and the test reads a running total the loop adds to; None when the branch writes a
    note of the cut."""
    statements = list(_statements(branch))
    if _notes_cut(m, statements):
        return None
    stop = next((s for s in statements if s.type == "break_statement"), None)
    if stop is not None:
        return stop
    stop = next((s for s in statements if s.type == "continue_statement"), None)
    if stop is None or any(s is not stop and not _logs(m, s) for s in statements):
        return None
    tested = {m.code(n) for n in walk(test, into_functions=False) if n.type in ("identifier", "member_expression")}
    return stop if tested & running else None


def _after_says_cut(m: Module, loop: Node) -> bool:
    """Whether the code after the loop, in its function, writes a note of what was left out."""
    function = enclosing(loop) or m.root
    return any(n.type in ("string", "template_string") and n.start_byte >= loop.end_byte and mentions_cut(m.code(n))
               and not _logs(m, _statement_of(n)) for n in walk(function, into_functions=False))


def _logs(m: Module, statement: Node) -> bool:
    """A call that writes a log: on a logger (``console.warn(...)``), or a method named for one
    (``this.log(...)``)."""
    if log_call(m, statement) is not None:
        return True
    call = m.unwrap(statement.named_children[0]) if statement.type == "expression_statement" \
        and statement.named_children else None
    callee = m.unwrap(m.field(call, "function")) if call is not None and call.type == "call_expression" else None
    return callee is not None and callee.type == "member_expression" and m.code(m.field(callee, "property")) == "log"


def _statement_of(node: Node) -> Node:
    while node.parent is not None and not node.type.endswith("statement"):
        node = node.parent
    return node


def _keeps(m: Module, loop: Node, iterated: Node) -> str:
    """Which end of the collection the loop keeps: the end when it walks it from its last item."""
    if loop.type == "for_in_statement":
        return "end" if any(w in m.code(iterated) for w in (".reverse()", ".toReversed()")) else "start"
    update = m.field(loop, "increment")
    return "end" if update is not None and "--" in m.code(update) else "start"


def _pinned(m: Module, loop: Node, iterated: Node) -> bool:
    """Items the user pinned (``docPaths = (await this.pinnedDocuments()).map(...)``): documents chosen
    to be read every time, not the best of a search, whatever the collection is called; each one the
    loop leaves out is one the user expects the model to have. (A word, the last resort: nothing else
    in the code tells a pinned collection from a retrieved one.)"""
    if "pinned" in m.code(iterated).lower():
        return True
    if iterated.type != "identifier":
        return False
    function = enclosing(loop) or m.root
    return any(n.type == "variable_declarator" and n.end_byte <= loop.start_byte
               and m.code(m.field(n, "name") or n) == m.code(iterated)
               and "pinned" in m.code(m.field(n, "value") or n).lower()
               for n in walk(function, into_functions=False))


def _sorted_before(m: Module, loop: Node, iterated: Node) -> bool:
    """A collection sorted before the loop (``docs.sort(...)``, ``.toSorted(...)``): ranked."""
    if any(w in m.code(iterated) for w in (".sort(", ".toSorted(", "sortBy(")):
        return True
    function = enclosing(loop) or m.root
    names = {m.code(n) for n in walk(iterated, into_functions=False) if n.type == "identifier"}
    return any(n.type == "call_expression" and n.end_byte <= loop.start_byte
               and m.code(m.field(n, "function")).endswith((".sort", ".toSorted", "sortBy"))
               and names & {m.code(a) for a in walk(n, into_functions=False) if a.type == "identifier"}
               for n in walk(function, into_functions=False))


def _drop_loop(m: Module, loop: Node, context: bool) -> Observation | None:
    """``while (usedTokens > budget) { messages.splice(1, 1); ... }``: items dropped from a collection
    until the text fits, with nothing put in their place."""
    test, body = m.field(loop, "condition"), m.field(loop, "body")
    if test is None or body is None or not _budget_test(m, test, context) or not _while_over(m, test) \
            or _after_says_cut(m, loop):
        return None  # (`while (usedTokens < budget)`: a loop that runs while there is room)
    statements = list(_statements(body))
    if _notes_cut(m, statements) or any(_flags_cut(m, s) for s in statements):
        return None  # a note of what was dropped written in the loop, or a flag its callers can say it with
    for statement in statements:
        dropped = _drop_of(m, statement)
        if dropped is None:
            continue
        subject, keeps = dropped
        # the lowest-ranked dropped first (`topScoredSnippets.pop()`): a selection, as in the fill loops;
        # by the words of the collection's name (a generic `result` is no search result)
        ranked = not RANKED_WORDS.isdisjoint(re.split(r"[^a-z]+", snake(subject)))
        how = "ranked-loop" if ranked else "drop-loop"
        cut = Cut("items", keeps, how, any(w in subject.lower() for w in HISTORY_WORDS))
        step = Evidence(EvidenceKind.FLOW, f"`while {' '.join(m.code(m.unwrap(test)).split())}` repeats it until the "
                        "text fits", m.span(test))
        detail = " ".join(m.code(statement).split())
        source = Source(SourceKind.TRUNCATION, detail, m.span(statement), cut=cut, flow=(step,))
        return Observation(how, m.span(statement), "no marker says what the loop dropped", source=source)
    return None


def _while_over(m: Module, test: Node) -> bool:
    """Whether a loop's test holds while the text is over its budget (``used > max``, ``remaining <
    needed``), not while there is room (``used < budget``)."""
    for node in walk(test, into_functions=False):
        operator = m.field(node, "operator") if node.type == "binary_expression" else None
        if operator is None or m.code(operator) not in _COMPARISONS:
            continue
        if m.code(operator).startswith(">"):
            return True
        left = snake(m.code(m.field(node, "left")))
        return any(w in left for w in _ROOM_WORDS)
    return False


def _flags_cut(m: Module, statement: Node) -> bool:
    """``didPrune = true``: the function records that it dropped items and hands the flag back, so its
    callers can say so (the Python front-end's ``was_truncated = True``)."""
    expression = m.unwrap(statement.named_children[0]) if statement.type == "expression_statement" \
        and statement.named_children else None
    if expression is None or expression.type != "assignment_expression":
        return False
    target, value = m.field(expression, "left"), m.field(expression, "right")
    return value is not None and m.code(value) == "true" and target is not None \
        and _CUT_FLAG.search(snake(m.code(target))) is not None


def _drop_of(m: Module, statement: Node) -> tuple[str, str] | None:
    """The collection a statement drops an item from, and the end of it that stays: ``x.shift()`` and
    ``x.splice(1, 1)`` keep its end, ``x.pop()`` its start; so do ``x = x.slice(2)`` and
    ``x = x.slice(0, -2)``, and the same calls whose item is kept in a name (``const old = x.shift()``)."""
    if statement.type in ("lexical_declaration", "variable_declaration"):
        declarators = [c for c in statement.named_children if c.type == "variable_declarator"]
        value = m.field(declarators[0], "value") if len(declarators) == 1 else None
        target = None
    elif statement.type == "expression_statement" and statement.named_children:
        value = m.unwrap(statement.named_children[0])
        target = None
        if value.type == "assignment_expression":
            target, value = m.field(value, "left"), m.field(value, "right")
    else:
        return None
    value = m.unwrap(value) if value is not None else None
    callee = m.unwrap(m.field(value, "function")) if value is not None and value.type == "call_expression" else None
    if callee is None or callee.type != "member_expression":
        return None
    subject, method = m.code(m.field(callee, "object")), m.code(m.field(callee, "property"))
    args = [m.unwrap(a) for a in m.args(value)]
    if target is not None:  # `x = x.slice(2)`, `x = x.slice(0, -2)`
        if method != "slice" or m.code(target) != subject:
            return None
        if len(args) == 1 and args[0].type != "unary_expression":
            return subject, "end"
        if len(args) == 2 and m.code(args[0]) == "0" and m.code(args[1]).startswith("-"):
            return subject, "start"
        return None
    if method in ("shift", "pop") and not args:
        return subject, "end" if method == "shift" else "start"
    if method == "splice" and len(args) == 2 and args[1].type == "number" and m.code(args[1]) != "0" \
            and not any(w in m.code(args[0]) for w in ("indexOf", "findIndex")):  # not an item found and removed
        return subject, "start" if "length" in m.code(args[0]) else "end"
    return None


def _notes_cut(m: Module, statements: list[Node]) -> bool:
    """Whether a statement that is no log writes text that says something was cut or left out."""
    return any(mentions_cut(m.code(n)) for s in statements if not _logs(m, s)
               for n in walk(s, into_functions=False) if n.type in ("string", "template_string"))
