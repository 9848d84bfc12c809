"""The cheap tests run before the analysis: can a module hold anything the front-end reads,
and does CPython's parser accept it within the depth the analysis follows?"""

from __future__ import annotations

import ast
import re
import sys

from ctxlint.frontends.python.knowledge import LLM_LIBRARIES, prompt_name, prompt_path, strong_prompt_name
from ctxlint.model import Span

# The cheap test: a module that mentions none of these holds no prompt ctxlint can read.

_MARKERS_CI = re.compile(
    r"openai|anthropic|litellm|chat\.completions|responses\.create|prompt|instruction|template"
    r"|system_message|system_msg",
    re.IGNORECASE,
)
_MARKERS_CS = re.compile(r"SYSTEM|mcp|\bTool\(|\.tool\b|messages\s*=|\.messages\.|[\"']role[\"']")
_LEN = re.compile(r"\blen\(|tokens?\s*\*\s*\d", re.IGNORECASE)
_TOKEN = re.compile(r"token", re.IGNORECASE)


def might_hold_prompts(text: str) -> bool:
    """A regex-level test, run before parsing: can this module hold anything we read?"""
    if _MARKERS_CS.search(text) or _MARKERS_CI.search(text):
        return True
    return bool(_LEN.search(text) and _TOKEN.search(text))


# The deepest syntax tree (in ``ast`` levels) the analysis follows: it recurses through
# expressions, and real code stays far below this.
MAX_DEPTH = 200

Problem = tuple[Span, str]


def precheck(text: str, path: str) -> tuple[Problem | None, ast.Module | None]:
    """Parse with CPython's own parser (nothing is executed): ``(error or None, tree or None)``.

    On a Python older than 3.12, type parameter syntax (``def f[T]()``, ``type X = ...``) is
    blanked out before a second try, keeping every position; other syntax the running Python
    does not know is a located error that says so.
    """
    try:
        tree = ast.parse(text, filename=path)
    except SyntaxError as error:
        tree = _parse_without_type_parameters(text, path)
        if tree is None:
            where = Span.point(path, error.lineno or 1, max(error.offset or 1, 1))
            message = syntax_message(error.msg)
            if sys.version_info < (3, 12):
                message += (f" (Python {sys.version_info.major}.{sys.version_info.minor} runs ctxlint; "
                            "if this is newer syntax, run it on a newer Python)")
            return (where, message), None
    except (RecursionError, MemoryError):
        return (Span.point(path, 1), f"the module nests too deeply to parse (more than {MAX_DEPTH} levels)"), None
    except ValueError as error:  # null bytes
        return (Span.point(path, 1), f"cannot parse: {error}"), None
    deepest, where = _ast_depth(tree)
    if deepest > MAX_DEPTH:
        line = getattr(where, "lineno", 1)
        column = getattr(where, "col_offset", 0) + 1
        return (Span.point(path, line, column),
                f"the module nests {deepest} levels deep; ctxlint reads Python up to {MAX_DEPTH} levels"), None
    return None, tree


_TYPE_ALIAS = re.compile(r"^([ \t]*)type[ \t]+([A-Za-z_]\w*)", re.MULTILINE)
_GENERIC = re.compile(r"^[ \t]*(?:async[ \t]+)?(?:def|class)[ \t]+[A-Za-z_]\w*(?=\[)", re.MULTILINE)


def _parse_without_type_parameters(text: str, path: str) -> ast.Module | None:
    """The tree of ``text`` with PEP 695 type parameters blanked (same length, same lines), on
    a Python that does not read them; None when that is not the problem."""
    if sys.version_info >= (3, 12) or not (_TYPE_ALIAS.search(text) or _GENERIC.search(text)):
        return None
    chars = list(text)
    for match in _GENERIC.finditer(text):
        close = _matching_bracket(text, match.end())
        if close is None:
            return None
        chars[match.end() : close + 1] = " " * (close + 1 - match.end())
    for match in _TYPE_ALIAS.finditer(text):
        start = match.end()
        if text.startswith("[", start):
            close = _matching_bracket(text, start)
            if close is None:
                return None
            chars[start : close + 1] = " " * (close + 1 - start)
        keyword = match.start(1) + len(match.group(1))
        name_start = match.start(2)
        # `type X = ...` reads as `X      = ...`: the name moves over the keyword, so the
        # statement keeps its indentation and everything after the name keeps its column.
        chars[keyword : name_start + len(match.group(2))] = list(match.group(2)) + [" "] * (name_start - keyword)
    try:
        return ast.parse("".join(chars), filename=path)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _matching_bracket(text: str, start: int) -> int | None:
    """The offset of the ``]`` closing the ``[`` at ``start``, on the same line."""
    depth = 0
    for index in range(start, min(len(text), start + 2000)):
        char = text[index]
        if char in "[(":
            depth += 1
        elif char in "])":
            depth -= 1
            if depth == 0:
                return index
        elif char == "\n":
            return None
    return None


_API_PARENTS = {"completions", "responses", "messages", "ChatCompletion"}
_API_LEAVES = {"create", "parse", "stream", "acreate"}


def _ast_chain(node) -> list[str]:

    names = []
    while isinstance(node, ast.Attribute):
        names.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        names.append(node.id)
    return names[::-1]


def interesting(tree, path: str = "") -> bool:
    """Whether a parsed module has anything the front-end reads: an LLM-shaped call, a tool, a
    role/content dict, a prompt name (a weak one only where an LLM library is imported or the
    path says prompts), or a ``len(x) / 4``-shaped expression in a module that mentions tokens."""

    tokens = estimate = weak = llm = False
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            chain = _ast_chain(node.func)
            if chain and (chain[-1] in ("completion", "acompletion", "Tool") or (
                chain[-1] in _API_LEAVES and len(chain) > 1 and chain[-2] in _API_PARENTS
            )):
                return True
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for decorator in node.decorator_list:
                chain = _ast_chain(decorator.func if isinstance(decorator, ast.Call) else decorator)
                if chain and chain[-1] in ("tool", "prompt"):
                    return True
            if prompt_name(node.name):
                if strong_prompt_name(node.name):
                    return True
                weak = True
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for part in ast.walk(target):
                    name = (part.id if isinstance(part, ast.Name)
                            else part.attr if isinstance(part, ast.Attribute) else None)
                    if name and prompt_name(name):
                        if strong_prompt_name(name):
                            return True
                        weak = True
        elif isinstance(node, ast.Dict):
            if any(isinstance(k, ast.Constant) and k.value == "role" for k in node.keys):
                return True
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            modules = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            llm = llm or any(m.split(".")[0] in LLM_LIBRARIES or ".".join(m.split(".")[:2]) in LLM_LIBRARIES
                             for m in modules if not getattr(node, "level", 0))
        elif isinstance(node, ast.BinOp):
            estimate = estimate or _ast_estimate_shape(node)
        if isinstance(node, ast.Name):
            name = node.id
        elif isinstance(node, ast.Attribute):
            name = node.attr
        elif isinstance(node, (ast.arg, ast.keyword)):
            name = node.arg
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            name = node.name
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and len(node.value) < 40:
            name = node.value  # a dict key: {"tokens": ...}
        else:
            name = None
        if name and "token" in name.lower():
            tokens = True
        if tokens and estimate:
            return True
    return weak and (llm or prompt_path(path))


def _ast_estimate_shape(node) -> bool:
    """``len(x) / 4``, ``n_chars // 4``, ``len(x.split()) * 1.3``, ``max_tokens * 4``: a count
    scaled by a small constant."""

    if not isinstance(node.op, (ast.Div, ast.FloorDiv, ast.Mult)):
        return False
    for number, other in ((node.right, node.left), (node.left, node.right)):
        if not (isinstance(number, ast.Constant) and isinstance(number.value, (int, float))
                and not isinstance(number.value, bool) and 0 < number.value <= 6):
            continue
        if isinstance(other, ast.Call):
            chain = _ast_chain(other.func)
            if chain and chain[-1] in ("len", "sum"):
                return True
        name = other.id if isinstance(other, ast.Name) else other.attr if isinstance(other, ast.Attribute) else ""
        if any(word in name.lower() for word in ("char", "len", "word", "token")):
            return True
    return False


def syntax_message(message: str) -> str:
    message = (message or "").strip()
    return "invalid syntax" if message in ("", "invalid syntax") else f"invalid syntax: {message}"


def _ast_depth(tree) -> tuple[int, object]:

    deepest, where = 0, tree
    stack = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > deepest:
            deepest, where = depth, node
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))
    return deepest, where


