"""What tells a cut followed to a prompt (``cut-reaches-prompt``) that matters from one that does
not, measured on the judged findings of that kind.

Two shapes were judged never right: a cut made only when a caller sets a cap that is off by
default (``if self.max_context_size: above = above[-self.max_context_size:]``, a documented
opt-in limit the caller asked for), and a cut to a length the project's prompts tell the model to
keep to (``truncate_at_sentence(summary, MAX_SUMMARY_CHARS)`` where a prompt says ``f"Under
{MAX_SUMMARY_CHARS} characters"``): a backstop to what the model was asked for, cutting its own
reply; the same for any slice of a model's answer, read back from the call given a prompt (``Cut.reply``).
Each is recorded on the cut (``Cut.optional``, ``Cut.told``, ``Cut.reply``) and reported as its own kind
of evidence; the cuts left are of text the program gathered (a mail's body, a block's output, a
page's elements), kept to a budget it sets itself.
"""

from __future__ import annotations

import ast
import re
from dataclasses import replace
from typing import TYPE_CHECKING

from ctxlint.frontends.python.knowledge import prompt_name
from ctxlint.frontends.python.nodes import statement_of
from ctxlint.model import Cut

if TYPE_CHECKING:
    from ctxlint.frontends.python.unit import Component

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef


def graded(site: Component, node: ast.Subscript | ast.Call, cut: Cut, fn: FunctionNode | None) -> Cut:
    """``cut`` with what makes it a cut nobody acts on recorded: ``optional`` when it is made only
    under a test that its own bound is set, ``told`` when its bound is a length the project's
    prompts ask the model to keep to, ``reply`` when the text it slices is a model's answer."""
    bound = _bound(node)
    if bound is not None and _tested_as_set(site.m.parents, node, bound):
        return replace(cut, optional=True)
    if bound is not None and _told(site, bound):
        return replace(cut, told=True)
    if isinstance(node, ast.Subscript) and fn is not None and _answers_a_prompt(site, node, fn):
        return replace(cut, reply=True)
    return cut


def _answers_a_prompt(site: Component, node: ast.Subscript, fn: FunctionNode) -> bool:
    """Whether the sliced text is read (``.get``, an attribute, an index, through local names) from
    what a call returns that is given a prompt: an argument named for one, or a call of a function
    named for one (``llm.generate(prompts.topics.notes(context))``): the model's own answer."""
    reply = site.reach.reply_call(node.value, fn, node.lineno)
    if reply is None:
        return False
    for argument in (*reply.args, *(k.value for k in reply.keywords)):
        named = argument.func if isinstance(argument, ast.Call) else argument
        dotted = site.m.dotted(named) or ""
        if any(prompt_name(part) for part in dotted.split(".")):
            return True
    return False


def _told(site: Component, bound: ast.expr) -> bool:
    """Whether a prompt's text states the bound to the model as a length to keep to: an f-string
    field of the same name followed by a unit (``f"Under {MAX_SUMMARY_CHARS} characters"``), in
    this module or in another module of the project. What is cut is then what the model wrote
    past the length it was asked for: the cut is a backstop."""
    name = bound.id if isinstance(bound, ast.Name) else bound.attr if isinstance(bound, ast.Attribute) else None
    if not name:
        return False
    pattern = _TOLD.replace(b"NAME", re.escape(name.encode()))
    # the module's own text as it is: ASCII-only case folding, as the scan of the project's bytes
    if re.search(pattern.decode(), site.m.text, re.IGNORECASE | re.ASCII):
        return True
    project = site.m.project
    return project is not None and bool(project.modules_matching("told", name, pattern, 1))


# A prompt's field of the bound followed by the unit it counts (`{MAX_SUMMARY_CHARS} CHARACTERS`).
_TOLD = rb"(?i)\{\s*(?:self\.)?NAME\s*\}\s*(?:characters|chars|words|tokens|sentences)\b"


def _bound(node: ast.Subscript | ast.Call) -> ast.expr | None:
    """The length a cut keeps: a slice's bound, or the second argument of a helper that cuts."""
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice):
        cut = node.slice
        bound = cut.upper if cut.upper is not None else cut.lower
        return bound.operand if isinstance(bound, ast.UnaryOp) else bound
    if isinstance(node, ast.Call) and len(node.args) > 1:
        return node.args[1]
    return None


def _tested_as_set(parents: dict[int, ast.AST], node: ast.AST, bound: ast.expr) -> bool:
    """Whether the statement that cuts sits in the body of an ``if`` (or the true side of a
    conditional expression) whose test is that the bound is set: ``if self.max_context_size:``,
    ``if limit is not None:``, ``if limit and ...``. A bound that is a number written in the code
    is never tested so; a name or an attribute that may hold ``None`` is a cap the caller chooses."""
    if isinstance(bound, ast.Constant):
        return False
    wanted = ast.dump(bound)
    child: ast.AST = statement_of(parents, node) or node
    parent = parents.get(id(child))
    while parent is not None and not isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)):
        if isinstance(parent, ast.If) and child in parent.body and _says_set(parent.test, wanted):
            return True
        child, parent = parent, parents.get(id(parent))
    expression = parents.get(id(node))
    return isinstance(expression, ast.IfExp) and expression.body is node and _says_set(expression.test, wanted)


def _says_set(test: ast.expr, wanted: str) -> bool:
    """``bound``, ``bound is not None``, or either among the operands of an ``and``."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return any(_says_set(value, wanted) for value in test.values)
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.IsNot) \
            and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is None:
        test = test.left
    return ast.dump(test) == wanted
