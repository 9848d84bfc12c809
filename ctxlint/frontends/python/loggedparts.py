"""A part of a collection that the code says, only to its log, is a part.

``logger.info(f"Summarizing {len(summaries)} of {page['total']} documents")`` in a function that
joins ``summaries`` into text (``"\\n\\n".join(summaries)``) that reaches a prompt: the code counts
what it left out and tells whoever reads the log, while the prompt gives the model the part with
nothing to say there is more, so it answers about "all the documents" from a page of them.

The log's own words are the evidence (a count of the collection, then "of" or "/", then a total the
source gives, not the length of another list: ``{len(picked)} of {len(tasks)}`` counts a choice),
and the text must be followed into a prompt (``cutreach``). A function that writes the count into
text that is not a log (``f"The first {len(summaries)} of {total} documents:"``) tells the model,
and is not reported.
"""

from __future__ import annotations

import ast
import re

from ctxlint.frontends.python.cutmarkers import LOGGING
from ctxlint.frontends.python.nodes import walk
from ctxlint.frontends.python.unit import Component
from ctxlint.model import Cut, Evidence, EvidenceKind, Observation, Source, SourceKind

LOGGED_PART = "logged-part"
# What a log says between the count of the part and the whole: `12 of 40`, `12 out of 40`, `12/40`.
_OF = re.compile(r"^\s+(?:of|out of)\s+$|^\s*/\s*$")
# The whole is a total the source of the collection gives (`page["total_entries"]`, `total_count`), not
# the length of another list (`{len(selected)} of {len(tasks)}` counts a choice, not a cut).
_WHOLE = re.compile("total|count", re.IGNORECASE)
# The same, as the source spells it, to skip a module before its functions are walked.
_SPELLED = re.compile(r"\{len\(\w+\)\}(?: (?:of|out of) |\s*/\s*)\{")


class LoggedParts(Component):
    def observe(self) -> list[Observation]:
        if _SPELLED.search(self.m.text) is None:
            return []
        found = []
        for fn, _ in self.m.functions:
            logs = [node for node in walk(fn) if isinstance(node, ast.Call) and _logs(node)]
            for log in logs:
                for part, whole in _counts(log):
                    if _noted(fn, logs, part, ast.unparse(whole)):
                        continue
                    for joined in _joins(fn, part):
                        steps = self.reach.into_prompt(joined, fn)
                        if steps is None:
                            continue
                        span = self.m.span(joined)
                        said = Evidence(EvidenceKind.FLOW, f"the code says only to its log that `{part}` holds a "
                                        f"part of {' '.join(self.m.code(whole).split())}: "
                                        f"`{' '.join(self.m.code(log).split())[:100]}`", self.m.span(log))
                        found.append(Observation(LOGGED_PART, span, "its text reaches a prompt", source=Source(
                            SourceKind.TRUNCATION, " ".join(self.m.code(joined).split()), span,
                            cut=Cut("items", "start", LOGGED_PART), flow=(said, *steps), strong=True)))
        return found


def _logs(call: ast.Call) -> bool:
    """``logger.info(...)``, ``logging.warning(...)`` (not ``print``: a script's console is its user's)."""
    func = call.func
    if not isinstance(func, ast.Attribute) or func.attr not in LOGGING:
        return False
    receiver = func.value.attr if isinstance(func.value, ast.Attribute) else getattr(func.value, "id", "")
    return "log" in receiver.lower()


def _counts(log: ast.Call) -> list[tuple[str, ast.expr]]:
    """The collections the log counts as a part of a whole (``{len(docs)} of {total}``), with the whole."""
    message = log.args[0] if log.args else None
    if not isinstance(message, ast.JoinedStr):
        return []
    values = message.values
    found = []
    for count, between, whole in zip(values, values[1:], values[2:], strict=False):
        if isinstance(count, ast.FormattedValue) and isinstance(between, ast.Constant) \
                and isinstance(between.value, str) and _OF.match(between.value) \
                and isinstance(whole, ast.FormattedValue):
            part = _counted(count.value)
            if part is not None and _WHOLE.search(ast.unparse(whole.value)) and _counted(whole.value) is None:
                found.append((part, whole.value))
    return found


def _counted(node: ast.expr) -> str | None:
    """``len(docs)``: the name counted."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len" \
            and len(node.args) == 1 and isinstance(node.args[0], ast.Name):
        return node.args[0].id
    return None


def _noted(fn: ast.AST, logs: list[ast.Call], part: str, whole: str) -> bool:
    """Whether text of the function that is not a log counts the part or names the whole."""
    in_logs = {id(n) for log in logs for n in walk(log)}
    for node in walk(fn):
        if isinstance(node, ast.FormattedValue) and id(node) not in in_logs and (
                _counted(node.value) == part or ast.unparse(node.value) == whole):
            return True
    return False


def _joins(fn: ast.AST, part: str) -> list[ast.Call]:
    """``"\\n\\n".join(part)``, or a join of text made from each of its items."""
    found = []
    for node in walk(fn):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "join"
                and isinstance(node.func.value, ast.Constant) and isinstance(node.func.value.value, str)
                and len(node.args) == 1):
            continue
        joined = node.args[0]
        if isinstance(joined, (ast.GeneratorExp, ast.ListComp)):
            joined = joined.generators[0].iter
        if isinstance(joined, ast.Name) and joined.id == part:
            found.append(node)
    return found
