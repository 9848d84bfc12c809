"""Syntax newer than the running interpreter, rewritten so that its parser reads it.

ctxlint parses Python with CPython's own parser, so on Python 3.11 a module written for 3.12 or
later would be a syntax error although its project's Python accepts it. Where the newer syntax
is only a spelling the older parser lacks, the module is rewritten to an equivalent that it
reads, **with every character at its place** (same length, same lines), so that spans, the
text the analysis scans and the tree all agree:

* PEP 695 type parameters (3.12; defaults from PEP 696, 3.13): ``def f[T]()``, ``class C[T]``
  and ``type X = ...`` lose the parameters and the keyword;
* PEP 701 f-strings (3.12): a replacement field that reuses the string's quotes, holds a
  backslash or a comment is rewritten: nested strings take the other quote, escapes and
  comments become blanks;
* PEP 750 template strings (3.14): ``t"..."`` reads as the f-string it is spelled like;
* PEP 758 (3.14): ``except A, B:`` without brackets keeps its first exception type.

What cannot be rewritten that way stays a syntax error; the caller says that the module may
need a newer Python instead of calling it broken.
"""

from __future__ import annotations

import re
import sys

from ctxlint.frontends.python.literals import closing_quote, field_end

_STRING_PREFIX = re.compile(r"(?<![\w.])([rRbBuUfFtT]{0,2})(?='|\")")
_STRING_OR_COMMENT = re.compile(r"[#'\"]")
_TYPE_ALIAS = re.compile(r"^([ \t]*)type[ \t]+([A-Za-z_]\w*)", re.MULTILINE)
_GENERIC = re.compile(r"^[ \t]*(?:async[ \t]+)?(?:def|class)[ \t]+[A-Za-z_]\w*(?=\[)", re.MULTILINE)
# `except A, B:` / `except* A, B as e:`: the types after the first comma, up to `as` or the colon.
_EXCEPT_TUPLE = re.compile(r"^([ \t]*except\*?[ \t]+[\w.]+[ \t]*)(,[^:\n()]*?)(?=[ \t]+as[ \t]+\w+[ \t]*:|[ \t]*:)",
                           re.MULTILINE)


def downlevel(text: str, version: tuple[int, int] = sys.version_info[:2]) -> str | None:
    """``text`` rewritten for a parser of ``version``, or None when nothing needed rewriting."""
    chars = list(text)
    changed = False
    if version < (3, 12):
        changed |= _blank_type_parameters(text, chars)
    if version < (3, 12) or version < (3, 14) and ("t'" in text or 't"' in text):
        changed |= _rewrite_strings(text, chars, version)
    if version < (3, 14) and "except" in text:
        for match in _EXCEPT_TUPLE.finditer(text):
            chars[match.start(2) : match.end(2)] = " " * (match.end(2) - match.start(2))
            changed = True
    return "".join(chars) if changed else None


# ---- PEP 695 --------------------------------------------------------------------------------


def _blank_type_parameters(text: str, chars: list[str]) -> bool:
    changed = False
    for match in _GENERIC.finditer(text):
        close = _matching_bracket(text, match.end())
        if close is not None:
            chars[match.end() : close + 1] = _blank(text[match.end() : close + 1])
            changed = True
    for match in _TYPE_ALIAS.finditer(text):
        after = match.end()
        if text.startswith("[", after):
            close = _matching_bracket(text, after)
            if close is None:
                continue
            chars[after : close + 1] = _blank(text[after : close + 1])
            after = close + 1
        rest = text[after : after + 80].lstrip(" \t")
        if not rest.startswith("=") or rest.startswith("=="):
            continue  # not an alias statement: `type X` must be followed by `=`
        keyword = match.start(1) + len(match.group(1))
        name_start = match.start(2)
        # `type X = ...` reads as `X      = ...`: the name moves over the keyword, so the
        # statement keeps its indentation and everything after the name keeps its column.
        chars[keyword : name_start + len(match.group(2))] = list(match.group(2)) + [" "] * (name_start - keyword)
        changed = True
    return changed


def _matching_bracket(text: str, start: int) -> int | None:
    """The offset of the ``]`` closing the ``[`` at ``start`` (brackets may span lines; strings
    inside are skipped whole), looked for over the next 2,000 characters."""
    after = field_end(text, start, min(len(text), start + 2000))
    return after - 1 if after is not None else None


def _blank(span: str) -> list[str]:
    """Spaces for the characters of ``span``; a line break in it is kept, after a backslash that
    joins the lines, so the statement still parses and every line keeps its number."""
    blank = [" "] * len(span)
    for index, char in enumerate(span):
        if char == "\n":
            blank[index] = "\n"
            if index:
                blank[index - 1] = "\\"
    return blank


# ---- PEP 701 and PEP 750 ----------------------------------------------------------------------


def _rewrite_strings(text: str, chars: list[str], version: tuple[int, int]) -> bool:
    """Walk the module's string literals (comments skipped) and rewrite those the parser of
    ``version`` would reject; True when something changed."""
    changed = False
    i, end = 0, len(text)
    while i < end:
        found = _STRING_OR_COMMENT.search(text, i)
        if found is None:
            break
        i = found.start()
        if text[i] == "#":
            newline = text.find("\n", i)
            i = end if newline < 0 else newline
            continue
        prefix_match = _STRING_PREFIX.search(text, max(0, i - 2), i + 1)
        prefix = prefix_match.group(1).lower() if prefix_match and prefix_match.end() == i else ""
        quote = text[i] * 3 if text.startswith(text[i] * 3, i) else text[i]
        body = i + len(quote)
        templated = "t" in prefix
        close = closing_quote(text, body, quote, "f" in prefix or templated, end)
        if close is None:
            return changed  # an unclosed string: the parser's error is the module's own
        if templated and version < (3, 14):
            at = i - len(prefix) + prefix.index("t")
            chars[at] = "f" if text[at] == "t" else "F"
            changed = True
        if ("f" in prefix or templated) and version < (3, 12):
            changed |= _rewrite_fields(text, chars, body, close, quote)
        i = close + len(quote)
    return changed


def _rewrite_fields(text: str, chars: list[str], start: int, end: int, quote: str) -> bool:
    """Rewrite the replacement fields of the f-string body ``text[start:end]`` for Python 3.11:
    no field may hold the body's own quote, a backslash or a comment."""
    changed = False
    i = start
    while i < end:
        brace = text.find("{", i, end)
        if brace < 0:
            break
        if text.startswith("{{", brace):
            i = brace + 2
            continue
        close = field_end(text, brace, end)
        if close is None:
            return changed
        changed |= _rewrite_field(text, chars, brace + 1, close - 1, quote)
        i = close
    return changed


def _rewrite_field(text: str, chars: list[str], start: int, end: int, outer: str) -> bool:
    changed = False
    i = start
    while i < end:
        char = text[i]
        if char == "#":  # a comment in a multi-line field (3.12): blank to the end of its line
            newline = text.find("\n", i, end)
            stop = end if newline < 0 else newline
            chars[i:stop] = " " * (stop - i)
            changed, i = True, stop
            continue
        if char not in "'\"":
            i += 1
            continue
        prefix_match = _STRING_PREFIX.search(text, max(start, i - 2), i + 1)
        prefix = prefix_match.group(1).lower() if prefix_match and prefix_match.end() == i else ""
        quote = text[i] * 3 if text.startswith(text[i] * 3, i) else text[i]
        body = i + len(quote)
        close = closing_quote(text, body, quote, "f" in prefix, end)
        if close is None:
            return changed
        if "f" in prefix:
            changed |= _rewrite_fields(text, chars, body, close, quote)
        for at in range(body, close):  # 3.11 allows no backslash anywhere in a field
            if text[at] == "\\":
                chars[at] = " "
                if at + 1 < close:
                    chars[at + 1] = " "
                changed = True
        if quote[0] == outer[0]:
            other = "'" if quote[0] == '"' else '"'
            inner = "".join(chars[body:close])
            if other in inner:  # no quote is left to take: the text goes, its place stays
                chars[body:close] = " " * (close - body)
            for at in (*range(i, body), *range(close, close + len(quote))):
                chars[at] = other
            changed = True
        i = close + len(quote)
    return changed
