"""A cut returned by a function whose name says it gives the whole text (``get_description_full``,
``retrieve_full_paper_text``, ``read_whole_file``): ``return text[:200]``. Every caller takes the
function at its word and hands what it returns on as the whole (to a prompt, as a paper's full
text or a pull request's description), and nothing marks that it stops short.
"""

from __future__ import annotations

import ast
import re

# The words of a function's name that promise all of a text.
_WHOLE = re.compile(r"(?:^|_)(?:full|whole|entire)(?:_|$)", re.IGNORECASE)


# The cheap test for a module that may hold one (before parsing): a function so named, and a
# slice returned straight.
WHOLE_DEF = re.compile(r"\bdef[ \t]+(?:\w*_)?(?:full|whole|entire)(?:_\w*)?[ \t]*\(", re.IGNORECASE)
RETURNED_SLICE = re.compile(r"\breturn[ \t]+[\w.]+\[[ \t]*:")


def returns_cut_whole(text: str) -> bool:
    """The cheap test: whether a module may return a cut from a function named for the whole text."""
    return bool(WHOLE_DEF.search(text) and RETURNED_SLICE.search(text))


def promises_whole(name: str) -> bool:
    return _WHOLE.search(name) is not None


def returned_straight(parents: dict[int, ast.AST], node: ast.expr) -> bool:
    """Whether ``node`` is the value of a ``return`` (``return text[:n]``)."""
    parent = parents.get(id(node))
    return isinstance(parent, ast.Return) and parent.value is node
