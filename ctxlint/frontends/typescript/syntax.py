"""tree-sitter for TypeScript and JavaScript: grammars loaded on first use, positions, literals.

tree-sitter reports byte offsets; the shared model counts columns in code points, so every
position goes through :class:`Text`, which maps bytes to (line, column) once per file.
"""

from __future__ import annotations

import bisect
import os
import re
import sys
import time
from collections.abc import Callable, Collection, Iterator
from functools import cache
from typing import Any

from ctxlint.frontends.typescript.knowledge import FUNCTIONS
from ctxlint.model import Span

Node = Any  # tree_sitter.Node; the library is imported lazily, so it is not named in annotations

# The grammar for each suffix: TypeScript without JSX (`<T>x` is a cast there), TSX, and
# JavaScript, whose grammar reads JSX in any JavaScript file.
GRAMMARS = {".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "tsx",
            ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascript"}


@cache
def parser(grammar: str):
    """A tree-sitter parser for ``grammar`` (imported here: a run over templates never loads it)."""
    from tree_sitter import Language, Parser

    if grammar == "javascript":
        import tree_sitter_javascript as javascript

        return Parser(Language(javascript.language()))
    import tree_sitter_typescript as typescript

    language = typescript.language_tsx() if grammar == "tsx" else typescript.language_typescript()
    return Parser(Language(language))


# tree-sitter's error recovery can take far longer than a parse of valid code: thousands of unclosed
# `<a>` tags around a stray string make it quadratic (15 KB: 20 s; 30 KB: 1 GB), and long runs of tokens it
# cannot place cost it ~30 times the normal rate per byte. Its progress callback runs about every hundred
# parser operations; the parse is cancelled past a number of them proportional to the input (7,661 real
# modules needed at most 2,000 + 0.002 per byte; dense valid code, such as a module of nothing but call sites,
# up to 0.009 per byte, as many as some broken modules whose recovery is slow) or, as a safety net for
# operations that each cost much more than usual, past a CPU-time budget proportional to the input (the
# development corpus's 7,660 modules parse in at most 0.14 s and 0.35 s per MB; a broken module seen in
# fuzzing spent 1.2 s on its first 25 KB). And past a memory budget proportional to the input:
# error recovery keeps many parse stacks alive (30 KB of unclosed tags: 1 GB), where real modules grow
# the process by at most ~34 bytes per byte of input.
PARSE_STEPS_BASE = 2_000
PARSE_STEPS_PER_BYTE = 0.1
PARSE_SECONDS_BASE = 0.5
PARSE_SECONDS_PER_MB = 1.0
PARSE_MEMORY_BASE = 32 << 20
PARSE_MEMORY_PER_BYTE = 64
MEMORY_EVERY = 32  # progress steps between two readings of the process's memory


def parse_steps_allowed(size: int) -> int:
    return PARSE_STEPS_BASE + int(PARSE_STEPS_PER_BYTE * size)


def resident_memory() -> int:
    """The process's resident memory in bytes: now on Linux, its peak elsewhere; 0 where unknown."""
    try:
        with open("/proc/self/statm", "rb") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError, AttributeError):
        pass
    try:
        import resource
    except ImportError:  # Windows
        return 0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024


def parse(grammar: str, data: bytes, clock: Callable[[], float] = time.process_time,
          memory: Callable[[], int] = resident_memory) -> Node | None:
    """The syntax tree's root node, or None when tree-sitter ran past the bounds above."""
    steps_allowed = parse_steps_allowed(len(data))
    deadline = clock() + PARSE_SECONDS_BASE + PARSE_SECONDS_PER_MB * len(data) / 1_000_000
    memory_allowed = memory() + PARSE_MEMORY_BASE + PARSE_MEMORY_PER_BYTE * len(data)
    steps = 0

    def read(offset: int, _point: object) -> bytes:
        return data[offset : offset + 65_536]

    def cancel(_offset: int, _has_error: bool) -> bool:
        nonlocal steps
        steps += 1
        return (steps > steps_allowed or clock() > deadline
                or steps % MEMORY_EVERY == 0 and memory() > memory_allowed)

    tree_sitter = parser(grammar)
    try:
        tree = tree_sitter.parse(read, progress_callback=cancel)
    except ValueError:  # what py-tree-sitter raises for a cancelled parse
        tree_sitter.reset()  # or the next parse would resume this one
        return None
    return tree.root_node


def unparsable(size: int) -> str:
    return ("skipped: tree-sitter could not parse this module in bounded time and memory (its error recovery "
            f"ran past {parse_steps_allowed(size):,} steps, "
            f"{PARSE_SECONDS_BASE + PARSE_SECONDS_PER_MB * size / 1e6:.1f} s of CPU time or "
            f"{(PARSE_MEMORY_BASE + PARSE_MEMORY_PER_BYTE * size) / 1e6:,.0f} MB on broken syntax); fix the syntax, "
            "or exclude the file if it is generated")


class Text:
    """A file's text and its UTF-8 bytes, with byte offsets turned into spans."""

    def __init__(self, text: str, path: str, first_line: int = 1):
        self.text = text
        self.data = text.encode("utf-8", "surrogatepass")
        self.path = path
        self.first_line = first_line
        self.ascii = len(self.data) == len(text)
        self._starts = [0] + [m.end() for m in re.finditer(b"\n", self.data)]

    def position(self, offset: int) -> tuple[int, int]:
        index = bisect.bisect_right(self._starts, offset) - 1
        start = self._starts[index]
        column = offset - start if self.ascii else len(self.data[start:offset].decode("utf-8", "replace"))
        return self.first_line + index, column + 1

    def span(self, start: int, end: int) -> Span:
        line, column = self.position(start)
        end_line, end_column = self.position(end)
        return Span(self.path, line, column, end_line, end_column)

    def node_span(self, node: Node) -> Span:
        return self.span(node.start_byte, node.end_byte)

    def code(self, node: Node) -> str:
        return self.data[node.start_byte : node.end_byte].decode("utf-8", "replace")

    def slice(self, start: int, end: int) -> str:
        return self.data[start:end].decode("utf-8", "replace")


_ESCAPE = re.compile(r"\\(?:u\{[0-9a-fA-F]+\}|u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|0(?![0-9])|\r\n|[\s\S])")
_SIMPLE = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "0": "\0", "\n": "", "\r\n": "",
           "\u2028": "", "\u2029": ""}


def _decode(match: re.Match) -> str:
    body = match.group(0)[1:]
    if body in _SIMPLE:
        return _SIMPLE[body]
    if body.startswith("u{"):
        code = int(body[2:-1], 16)
        return chr(code) if code <= 0x10FFFF else ""
    if body[0] in "ux" and len(body) > 1:
        return chr(int(body[1:], 16))
    return body


def unescape(raw: str) -> str:
    """The value of a JavaScript string or template body written as ``raw``."""
    return raw if "\\" not in raw else _ESCAPE.sub(_decode, raw)


def named_children(node: Node) -> Iterator[Node]:
    """``node.named_children`` one at a time, without a list of them all."""
    cursor = node.walk()
    if not cursor.goto_first_child():
        return
    while True:
        child = cursor.node
        if child.is_named:
            yield child
        if not cursor.goto_next_sibling():
            return


def walk(node: Node, into_functions: bool = True) -> Iterator[Node]:
    """``node`` and every node under it, in source order; not those of the functions nested in it
    unless ``into_functions``."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed([c for c in current.children if into_functions or c.type not in FUNCTIONS]))


def own_nodes(function: Node) -> Iterator[Node]:
    """The nodes of a function's body, not those of the functions nested in it."""
    body = function.child_by_field_name("body")
    return walk(body, into_functions=False) if body is not None else iter(())


def enclosing(node: Node, types: Collection[str] = FUNCTIONS) -> Node | None:
    """The nearest node above ``node`` of one of ``types`` (by default the function it is in)."""
    current = node.parent
    while current is not None and current.type not in types:
        current = current.parent
    return current


def first_error(root: Node, max_depth: int) -> tuple[Node | None, bool]:
    """The first ERROR or MISSING node, in source order (subtrees without errors are skipped), and
    whether it lies deeper than ``max_depth`` levels: then it is not looked at further, since a
    node finds its parent by walking down from the root, and 40,000 levels overflow the C stack.

    The TSX grammar reads `&name` inside a JSX attribute string, and a bare `&` in JSX text
    (`<div>Create & Run</div>`), as a broken character entity, where React takes them literally
    (`href="…?a=1&utm_source=x"`): that is not an error.
    """
    cursor = root.walk()
    depth = 0
    while True:
        node = cursor.node
        if (node.is_error or node.is_missing) and (depth > max_depth or not _literal_ampersand(node)):
            return node, depth > max_depth
        if node.has_error and cursor.goto_first_child():
            depth += 1
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return None, False
            depth -= 1


def _literal_ampersand(node: Node) -> bool:
    """An error the grammar makes of an `&` React takes literally: in a JSX attribute string, or
    opening a stretch of JSX text."""
    parent = node.parent
    if not node.is_error or parent is None:
        return False
    if parent.type == "string":
        return parent.parent is not None and parent.parent.type == "jsx_attribute"
    return parent.type in ("jsx_element", "jsx_fragment") and (node.text or b"").startswith(b"&")
