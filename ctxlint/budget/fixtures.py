"""Fixtures: sample content for a prompt's variable segments, so the simulation counts real tokens.

A fixture file is a YAML or JSON mapping of segment name to content:

- a string: the text, cut into lines;
- a list of strings: one unit each (a document, a log line, a turn);
- a list of ``{role, content}`` mappings: conversation turns, written ``role: content``;
- a mapping or another list: its JSON text (a tool result), cut into lines;
- under ``tools``: a list of tool definitions (OpenAI, Anthropic or MCP shape), for a prompt
  whose tools are registered in code.

By convention the fixtures of ``review.prompty`` sit beside it in ``review.fixtures.yaml`` (or
``.yml`` / ``.json``); a declaration or ``--fixtures FILE`` can name another file, and a Prompty
file's own ``sample:`` inputs serve when there is no file. The file is loaded with the bounded
safe YAML loader and never executed.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ctxlint.model import Span, ToolDef
from ctxlint.numbers import read_int

SUFFIXES = (".yaml", ".yml", ".json")


class FixtureError(Exception):
    """A fixture file that cannot be used; the message names the file (and line when known)."""


@dataclass(frozen=True)
class Content:
    """A segment's sample content as units: lines, or list items (turns, documents) when
    ``turns`` is True; summarize keeps or drops whole units."""

    units: tuple[str, ...]
    turns: bool = False

    @property
    def text(self) -> str:
        return "\n".join(self.units)


@dataclass(frozen=True)
class Fixtures:
    path: Path
    contents: dict[str, Content]
    tools: tuple[ToolDef, ...] | None  # None: the file gives no tools
    lines: dict[str, int]  # the line of each key, for messages
    # False for a Prompty file's `sample:` inputs, which may name inputs the template never prints.
    strict: bool = True

    def names(self) -> list[str]:
        return [*self.contents, *(["tools"] if self.tools is not None else [])]


def candidates(prompt: Path) -> list[Path]:
    """Where the fixtures of ``review.prompty`` may sit: ``review.fixtures.yaml``, .yml, .json."""
    stem = prompt.name.rsplit(".", 1)[0] if "." in prompt.name else prompt.name
    return [prompt.with_name(f"{stem}.fixtures{suffix}") for suffix in SUFFIXES]


def beside(prompt: Path) -> Path | None:
    """The first fixture file next to ``prompt`` that exists, if any."""
    return next((path for path in candidates(prompt) if path.is_file()), None)


def load(path: Path, max_bytes: int = 2_000_000) -> Fixtures:
    """The fixtures in ``path``; FixtureError with the reason when it cannot be used."""
    try:
        size = path.stat().st_size
        if size > max_bytes:
            raise FixtureError(f"{path}: {size:,} bytes is over the {max_bytes:,}-byte limit for fixtures")
        text = path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        raise FixtureError(f"{path}: fixtures file not found") from None
    except OSError as error:
        raise FixtureError(f"{path}: cannot read the fixtures: {error.strerror or error}") from None
    except UnicodeDecodeError:
        raise FixtureError(f"{path}: the fixtures are not UTF-8 text") from None
    data, lines = _parse(path, text.removeprefix("\ufeff"))
    return from_mapping(data, path, lines)


def from_mapping(data: object, path: Path, lines: dict[str, int], strict: bool = True) -> Fixtures:
    """Fixtures from loaded data (a fixture file's, or the ``sample:`` of a Prompty file)."""
    if not isinstance(data, Mapping):
        raise FixtureError(f"{path}: fixtures must be a mapping of segment name to sample content")
    contents: dict[str, Content] = {}
    tools = None
    for key, value in data.items():
        where = f"{path}:{lines.get(str(key), 1)}"
        if not isinstance(key, str):
            raise FixtureError(f"{where}: {key!r} is not a segment name")
        if key == "tools":
            tools = _tools(value, where, str(path), lines.get(key, 1))
        else:
            contents[key] = _content(value, where)
    return Fixtures(path, contents, tools, lines, strict)


def _parse(path: Path, text: str) -> tuple[object, dict[str, int]]:
    """The data and the line of each top-level key."""
    if path.suffix.lower() == ".json":
        try:
            data = json.loads(text, parse_int=read_int)  # a 5,000-digit number is infinity, not a crash
        except json.JSONDecodeError as error:
            raise FixtureError(f"{path}:{error.lineno}: not valid JSON: {error.msg}") from None
        except RecursionError:
            raise FixtureError(f"{path}: the JSON nests too deeply to read") from None
        lines = {}
        if isinstance(data, dict):
            for key in data:
                offset = text.find(json.dumps(key, ensure_ascii=False))
                lines[key] = text.count("\n", 0, offset) + 1 if offset >= 0 else 1
        return data, lines
    import yaml

    from ctxlint import yamlsafe

    try:
        document = yamlsafe.load(text)
    except yamlsafe.YamlError as error:
        raise FixtureError(f"{path}:{error.line + 1}: {error.message}") from None
    lines = {}
    if isinstance(document.node, yaml.MappingNode):
        for key, _ in document.node.value:
            if isinstance(key, yaml.ScalarNode):
                lines[key.value] = key.start_mark.line + 1
    return document.data, lines


def _content(value: object, where: str) -> Content:
    if isinstance(value, str):
        return Content(tuple(value.rstrip("\n").split("\n")) if value else ())
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return Content((str(value),))
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return Content(tuple(v.rstrip("\n") for v in value), turns=True)
    if isinstance(value, list) and value and all(_is_turn(v) for v in value):
        return Content(tuple(f"{v['role']}: {str(v['content']).rstrip()}" for v in value), turns=True)
    if isinstance(value, (list, Mapping)):
        try:
            text = json.dumps(value, ensure_ascii=False, indent=2, default=str)
        except (TypeError, ValueError, RecursionError):
            raise FixtureError(f"{where}: this value cannot be written as JSON text") from None
        return Content(tuple(text.split("\n")))
    if value is None:
        return Content(())
    raise FixtureError(f"{where}: sample content must be text, a list of texts or turns, or JSON data")


def _is_turn(value: object) -> bool:
    return isinstance(value, Mapping) and set(value) <= {"role", "content", "name"} and \
        isinstance(value.get("role"), str) and "content" in value


def _tools(value: object, where: str, path: str, line: int) -> tuple[ToolDef, ...]:
    """Tool definitions in any of the shapes the tool front-end reads."""
    if isinstance(value, Mapping) and isinstance(value.get("tools"), list):
        value = value["tools"]
    if not isinstance(value, list):
        raise FixtureError(f"{where}: `tools` must be a list of tool definitions")
    tools = []
    for index, item in enumerate(value):
        if not isinstance(item, Mapping):
            raise FixtureError(f"{where}: tool {index + 1} is not a mapping")
        function = item.get("function")
        inner: Mapping = function if isinstance(function, Mapping) else item
        name = inner.get("name")
        if not isinstance(name, str) or not name:
            raise FixtureError(f"{where}: tool {index + 1} has no name")
        description = inner.get("description")
        schema = next((inner[k] for k in ("parameters", "input_schema", "inputSchema") if k in inner), None)
        tools.append(ToolDef(name, description if isinstance(description, str) else None, schema,
                             Span.point(path, line), item))
    return tuple(tools)
