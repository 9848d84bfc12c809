"""YAML loaded safely: the safe loader only, with a bound on alias expansion and nesting.

An alias bomb (``&a [*a, *a]`` nested ten deep) is a few lines that expand to billions of
nodes, and anchors can make a structure contain itself. We compose the node graph first,
count nodes as a walk would visit them (aliases expanded) up to a limit, and only then build
Python objects. Nodes keep their marks, so keys can be located for findings.

Scalars the safe loader resolves to a type but cannot construct (``!!int a``, ``0x_``, the date
``2024-02-30``, ``!!bool maybe``) are invalid YAML, reported at the value; an integer too long
to read (see :mod:`ctxlint.numbers`) is read as infinity. Merge keys (``<<: *base``) are
expanded in the node graph as well as in the data, so the graph describes the expanded document.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import yaml

from ctxlint.numbers import MAX_DIGITS, read_int

MAX_NODES = 200_000  # generous for real files, far below what an alias bomb expands to
# PyYAML's C composer recurses once per level and overflows the C stack (the process dies) at
# about 30,000 levels, which 60 KB of `- - - …` reaches. Deeper documents are refused before they
# are composed. (PyYAML 6.0.4's bundled libyaml has a nesting limit of its own, which reports
# such a document as invalid YAML first; 6.0.3 has none.)
MAX_DEPTH = 1_000


@dataclass
class YamlError(Exception):
    message: str
    line: int  # 0-based, as YAML marks are
    column: int


@dataclass(frozen=True)
class Document:
    data: object
    node: yaml.Node | None

    def locate(self, *path: str) -> yaml.Node | None:
        """The key node at ``path`` (e.g. ``"model", "parameters", "max_tokens"``), or None."""
        return locate(self.node, *path)


def locate(node: yaml.Node | None, *path: str) -> yaml.Node | None:
    """The key node at ``path`` below a mapping node, or None."""
    key_node = None
    for key in path:
        if not isinstance(node, yaml.MappingNode):
            return None
        for k, v in node.value:
            if isinstance(k, yaml.ScalarNode) and k.value == key:
                key_node, node = k, v
                break
        else:
            return None
    return key_node


def load(text: str) -> Document:
    """Compose, check the size of, and construct one YAML document; raise YamlError."""
    return _read(text, build=True)


class FileError(Exception):
    """A YAML file that cannot be read or loaded: ``where`` is its path, with the line and column
    when the YAML is at fault."""

    def __init__(self, where: str, reason: str) -> None:
        super().__init__(f"{where}: {reason}")
        self.where, self.reason = where, reason


def load_file(path: Path, text: str | None = None) -> object:
    """The data of a YAML file of ctxlint's own configuration (a framework or rule file), loaded
    as any YAML it lints is, or of ``text`` read from it (a part, its lines where they are in the
    file); raise FileError."""
    try:
        return load(path.read_text(encoding="utf-8") if text is None else text).data
    except (OSError, UnicodeDecodeError) as error:
        raise FileError(str(path), str(error)) from None
    except YamlError as error:
        raise FileError(f"{path}:{error.line + 1}:{error.column + 1}", error.message) from None


def compose(text: str) -> yaml.Node | None:
    """The node graph of one YAML document, refused for the same errors as :func:`load`, for a
    caller that reads the nodes and not the Python data.

    A graph of plain mappings, sequences and scalars is checked without building its data: only
    the scalars typed as numbers, booleans, null or dates can fail to construct, and the first of
    them in the text (the one construction stops at) is reported. Anything else (explicit tags,
    merge keys, keys that are collections) is constructed, which also expands its merge keys.
    """
    return _read(text, build=False).node


def _read(text: str, build: bool) -> Document:
    if _could_nest_past(text, MAX_DEPTH):
        _check_depth(text)
    loader = _Loader(text)
    data = None
    try:
        node = loader.get_single_node()
        if node is not None:
            checked = _check_size(node)
            if build or checked is None:
                data = loader.construct_document(node)
            else:
                _check_scalars(loader, checked)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        line, column = (mark.line, mark.column) if mark else (0, 0)
        if line > text.count("\n"):  # the end of a text without a final line break: its last line
            line, column = text.count("\n"), len(text) - text.rfind("\n") - 1
        raise YamlError(_describe(error), line, column) from None
    except yaml.YAMLError as error:
        raise YamlError(str(error), 0, 0) from None
    except RecursionError:
        raise YamlError("the YAML nests too deeply to load", 0, 0) from None
    finally:
        loader.dispose()
    return Document(data, node)


def _could_nest_past(text: str, depth: int) -> bool:
    """A cheap bound on nesting: False when ``text`` certainly nests ``depth`` levels or fewer.

    A block level takes a column of indentation or an indicator (``-``, ``?``, ``:``) on its line
    (a sequence under a key may share the key's column, hence twice the indentation); a flow
    level takes a bracket, and flow collections can span lines. Brackets inside strings only make
    the bound larger, which costs the exact check, never a wrong refusal.
    """
    if len(text) <= depth:
        return False
    lines = text.splitlines()
    if 3 * max(map(len, lines)) + text.count("[") + text.count("{") <= depth:
        return False  # the per-line bound below, taken for the longest line and every bracket
    flow = 0
    for line in lines:
        body = line.lstrip(" ")
        opened = body.count("[") + body.count("{")
        flow = max(0, flow + opened - body.count("]") - body.count("}"))
        block = 2 * (len(line) - len(body)) + body.count("-") + body.count("?") + body.count(":")
        if block + opened + flow > depth:
            return True
    return False


def _check_depth(text: str) -> None:
    """Refuse a document nesting deeper than MAX_DEPTH, reading its events (no recursion)."""
    loader = yaml.CSafeLoader(text) if hasattr(yaml, "CSafeLoader") else yaml.SafeLoader(text)
    starts, ends = (yaml.SequenceStartEvent, yaml.MappingStartEvent), (yaml.SequenceEndEvent, yaml.MappingEndEvent)
    depth = 0
    try:
        while (event := loader.get_event()) is not None:
            if isinstance(event, starts):
                depth += 1
                if depth > MAX_DEPTH:
                    mark = event.start_mark
                    raise YamlError(f"the YAML nests more than {MAX_DEPTH:,} levels deep; not read",
                                    mark.line if mark else 0, mark.column if mark else 0)
            elif isinstance(event, ends):
                depth -= 1
    except yaml.YAMLError:
        return  # the composer reports the same error, located
    finally:
        loader.dispose()


_MAP, _SEQ, _STR, _MERGE = (f"tag:yaml.org,2002:{name}" for name in ("map", "seq", "str", "merge"))


def _check_size(root: yaml.Node) -> list[yaml.ScalarNode] | None:
    """Refuse a graph that expands to more than MAX_NODES nodes. Return its typed scalars (see
    :func:`compose`) when the graph is plain, else None."""
    seen = 0
    stack = [root]
    typed: list[yaml.ScalarNode] | None = []
    while stack:
        node = stack.pop()
        seen += 1
        if seen > MAX_NODES:
            mark = root.start_mark
            raise YamlError(
                f"the YAML expands through aliases to more than {MAX_NODES:,} nodes (or contains itself); not loaded",
                mark.line,
                mark.column,
            )
        if isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
            if node.tag != _SEQ:
                typed = None
        elif isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                stack.append(key)
                stack.append(value)
                if typed is not None and (not isinstance(key, yaml.ScalarNode) or key.tag == _MERGE):
                    typed = None
            if node.tag != _MAP:
                typed = None
        elif typed is not None and isinstance(node, yaml.ScalarNode) and node.tag != _STR:
            if node.tag in _WHAT:
                typed.append(node)
            else:
                typed = None
    return typed


def _check_scalars(loader: _Loader, typed: list[yaml.ScalarNode]) -> None:
    """Raise the error construction would raise first: that of the earliest invalid scalar."""
    for node in sorted({id(n): n for n in typed}.values(), key=lambda n: n.start_mark.index):
        _CONSTRUCTORS[node.tag](loader, node)


def _describe(error: yaml.MarkedYAMLError) -> str:
    parts = [p for p in (error.context, error.problem) if p]
    return "invalid YAML: " + ", ".join(parts) if parts else "invalid YAML"


# --- scalars that resolve to a type but are not valid values of it -----------------------------

_WHAT = {
    "tag:yaml.org,2002:int": "an integer",
    "tag:yaml.org,2002:float": "a number",
    "tag:yaml.org,2002:bool": "a boolean (true or false)",
    "tag:yaml.org,2002:timestamp": "a valid date or time",
    "tag:yaml.org,2002:null": "null",
}


def _located(tag: str, construct: Callable) -> Callable:
    """``construct`` (a scalar constructor), with its Python errors turned into a located YAML error."""

    def checked(constructor: yaml.constructor.SafeConstructor, node: yaml.ScalarNode) -> object:
        try:
            return construct(constructor, node)
        except yaml.YAMLError:
            raise
        except (ValueError, TypeError, KeyError, AttributeError, IndexError, OverflowError) as error:
            value = node.value if isinstance(node.value, str) else ""
            shown = value if len(value) <= 40 else value[:39] + "…"
            detail = f" ({error})" if isinstance(error, ValueError) and tag.endswith("timestamp") else ""
            message = f"`{shown}` is not {_WHAT[tag]}{detail}; write it as a quoted string if it is text"
            raise yaml.constructor.ConstructorError(None, None, message, node.start_mark) from None

    return checked


def _construct_int(constructor: yaml.constructor.SafeConstructor, node: yaml.ScalarNode) -> int | float:
    """YAML 1.1 integers (``0b``, ``0x``, octal, ``1:30`` base 60), read with a bound on length."""
    value = str(constructor.construct_scalar(node)).replace("_", "")
    sign = -1 if value.startswith("-") else 1
    digits = value[1:] if value[:1] in "+-" else value
    if digits.startswith("0b"):
        number = read_int(digits[2:], 2)
    elif digits.startswith("0x"):
        number = read_int(digits[2:], 16)
    elif digits.startswith("0") and digits != "0":
        number = read_int(digits, 8)
    elif ":" in digits:
        parts = [read_int(part) for part in digits.split(":")]
        if len(digits) > MAX_DIGITS:
            return sign * float("inf")
        number = 0
        for part in parts:
            number = number * 60 + part
    else:
        number = read_int(digits)
    return sign * number


_SAFE = yaml.constructor.SafeConstructor.yaml_constructors
_CONSTRUCTORS: dict[str | None, Callable[..., object]] = {  # by tag; None: any other tag
    **_SAFE,
    **{tag: _located(tag, _construct_int if tag.endswith(":int") else _SAFE[tag]) for tag in _WHAT},
}


class _Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """The safe loader (the C one when PyYAML has it), with located scalar errors."""

    yaml_constructors = _CONSTRUCTORS


_SCALARS = yaml.constructor.SafeConstructor()


def scalar(node: yaml.ScalarNode) -> object:
    """The value of a scalar node of a document :func:`load` accepted: a string, a number, a
    boolean, None, or the text of a date or binary value (so that values stay JSON-like)."""
    if node.tag == "tag:yaml.org,2002:str":
        return node.value
    construct = _CONSTRUCTORS.get(node.tag, _CONSTRUCTORS[None])
    try:
        value = construct(_SCALARS, node)  # called directly: nothing is cached between files
    except yaml.YAMLError:  # a tag the safe loader does not know: keep the text, it is only data to us
        return node.value
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, (datetime.date, bytes)):
        return str(value)
    return node.value
