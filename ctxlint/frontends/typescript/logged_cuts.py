"""A cut the code says it made, but only to its log.

``content = pruneLinesFromTop(content, this.maxTokens - this.usedTokens, model)`` in a class that also
writes ``if (this.usedTokens >= this.maxTokens) console.debug("The map was cut to fit the window")``:
a test of a budget the cut is sized by whose only consequence is a log call. The author knows the text
comes out cut and tells whoever reads the log, never the model the text is made for. A log call in
the branch that cuts (``if (n > max) { console.warn("trimming"); text = trim(text, max); }``) says
the same. A test that does anything but log (returns, throws, sets a flag) may tell the model, and
is none, and so is a log that says nothing of a loss (a progress line, a count).
"""

from __future__ import annotations

from ctxlint.frontends.typescript.knowledge import FUNCTIONS, Node
from ctxlint.frontends.typescript.syntax import walk
from ctxlint.frontends.typescript.unit import Module
from ctxlint.markers import says_loss
from ctxlint.model import Evidence, EvidenceKind

# The objects a log call is made on (`console.debug`, `this.logger.warn`), and its methods.
_LOGGERS = ("console", "logger", "log", "_logger")
_LOG_METHODS = ("log", "debug", "info", "warn", "warning", "error", "trace")
_COMPARISONS = ("<", "<=", ">", ">=")
_CLASSES = ("class_declaration", "class", "abstract_class_declaration")


def logged_only(m: Module, call: Node, cut_index: int) -> Evidence | None:
    """Where the code tests a budget ``call`` is sized by and only logs that it cut, as evidence."""
    args = m.args(call)
    budget = {name for i, a in enumerate(args) if i != cut_index for name in _names(m, a)}
    budget -= {name for name in _names(m, args[cut_index])} if cut_index < len(args) else set()
    if not budget:
        return None
    for branch in _tests(m, _owner(call)):
        condition = m.field(branch, "condition")
        if condition is None or not _compares(m, condition, budget):
            continue
        log = _only_log(m, branch, call)
        if log is not None:
            where = m.span(log)
            said = " ".join(m.code(log).split())
            test = " ".join(m.code(m.unwrap(condition)).split())
            return Evidence(EvidenceKind.FLOW, f"the code tests the same budget (`{test}`, "
                            f"line {where.line}) and says so only to its log: `{said[:90]}`", where)
    return None


def _owner(call: Node) -> Node:
    """The class the cut is made in (its budget may be tested by another method), else its function."""
    node, function = call.parent, None
    while node is not None:
        if node.type in _CLASSES:
            return node
        if function is None and node.type in FUNCTIONS:
            function = node
        node = node.parent
    return function if function is not None else call


def _tests(m: Module, owner: Node) -> list[Node]:
    return [n for n in walk(owner) if n.type == "if_statement"]


def _names(m: Module, node: Node) -> set[str]:
    """The names and property paths a value reads (`this.maxTokens - this.usedTokens`)."""
    found = set()
    for n in walk(node, into_functions=False):
        if n.type in ("identifier", "member_expression") and not (
                n.parent is not None and n.parent.type == "member_expression" and n.parent.child_by_field_name(
                    "object") is not None and n.parent.child_by_field_name("object").id == n.id):
            dotted = m.dotted(n)
            if dotted:
                found.add(dotted)
    return found


def _compares(m: Module, condition: Node, budget: set[str]) -> bool:
    """A comparison (`used >= max`) one side of which reads a name of the budget."""
    for n in walk(condition, into_functions=False):
        operator = m.field(n, "operator") if n.type == "binary_expression" else None
        if operator is not None and m.code(operator) in _COMPARISONS and _names(m, n) & budget:
            return True
    return False


def _only_log(m: Module, branch: Node, call: Node) -> Node | None:
    """The log call of an ``if`` whose branches do nothing but log (the cut itself allowed in the
    branch that makes it); None when a branch does anything else."""
    log = None
    for part in (m.field(branch, "consequence"), m.field(branch, "alternative")):
        if part is None:
            continue
        statements = [s for s in part.named_children if s.type != "comment"] \
            if part.type in ("statement_block", "else_clause") else [part]
        if len(statements) == 1 and statements[0].type == "statement_block":
            statements = [s for s in statements[0].named_children if s.type != "comment"]
        for statement in statements:
            found = log_call(m, statement)
            if found is not None:
                log = log or found
            elif not (statement.start_byte <= call.start_byte and call.end_byte <= statement.end_byte):
                return None
    return log if log is not None and says_loss(m.code(log)) else None


def log_call(m: Module, statement: Node) -> Node | None:
    if statement.type != "expression_statement" or not statement.named_children:
        return None
    call = m.unwrap(statement.named_children[0])
    callee = m.unwrap(m.field(call, "function")) if call.type == "call_expression" else None
    if callee is None or callee.type != "member_expression":
        return None
    receiver = (m.dotted(m.field(callee, "object")) or "").rsplit(".", 1)[-1]
    return call if receiver in _LOGGERS and m.code(m.field(callee, "property")) in _LOG_METHODS else None
