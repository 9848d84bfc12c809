"""Templates linked to where they are rendered: a slot takes the facts of the value passed to it.

A template says what it holds only by its slots' names; the code that renders it knows what it
passes. When a template file (Jinja, Prompty, Dotprompt, a text prompt) is linted, the project's
Python modules that name it are read with the Python front-end, and each render site
(``get_template("x.j2").render(page=body)``, ``prompty.execute("x.prompty", inputs={...})``,
``render_template("x.j2", **values)``: see ``python/renders.py``) gives, for each variable, the
facts of the value: third-party content from a source of the framework catalogue, the calls it
makes (a clock), whether it is a collection, and whether it is one in no fixed order (a listing,
a set of strings) that the template prints whole. A variable every site fills with text the project
wrote itself is the project's own text, whatever its name.

Findings stay in the template, where the fix is made, with the render site as a located step of
their evidence. The modules that may render a template are found through an index of the string
literals that name template files in the project's Python code, built once per process and root
on the first template that needs it (a scan of each module's text, bounded in files and bytes),
and only those modules are parsed (kept, as imports are); so are the modules beside a folder of
templates that name one by its stem (``_get_prompt("grade", ...)`` for ``prompts/grade.txt``). A
text file in a ``templates/`` folder is a prompt only through this link (``linked_only``). A
render site added in another file after a template's result was cached is seen when the template
or a file it was linked to changes.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from ctxlint.frontends import TEMPLATE_FOLDERS
from ctxlint.frontends.code.filled import linked_slot
from ctxlint.model import ParsedFile, Request, Role, Segment, Span
from ctxlint.results import real_directory

if TYPE_CHECKING:
    from ctxlint.frontends import ParseContext
    from ctxlint.frontends.python.project import Project
    from ctxlint.frontends.python.renders import Site, Value

# Bounds of the index (files scanned, bytes read from each) and of one template's linking.
MAX_FILES = 20_000
MAX_FILE_BYTES = 400_000
MAX_MODULES = 8
_SKIPPED_DIRS = frozenset({"node_modules", "site-packages", "__pycache__", "venv", "env", "build", "dist"})
# Byte strings a module that names a template holds (searched for one by one: faster than a regex).
_MARKERS = (b".j2", b".jinja", b".prompt", b".txt", b".md", b".yaml", b".yml", b"prompt(", b"template(", b"render(")
# A string literal naming a template file, and a Dotprompt or Prompty loaded by name
# (`ai.prompt("summarise")`, `load_prompt("summarise")`), or a `.prompt` file a helper renders from
# its name (`convo.template("filter_files", files=...)`, `self.render("review", ...)`): keyed by the
# name's `.prompt` and `.prompty` files only, so a page rendered by name links no prompt.
_FILE_LITERAL = re.compile(r"""["']([^"'\n]{0,200}?\.(?:j2|jinja2?|prompty|prompt|txt|md|ya?ml))["']""", re.IGNORECASE)
_PROMPT_NAME = re.compile(r"""(?:prompt|\btemplate|\brender)\(\s*["']([\w.\-/]{1,200})["']""")
# A Jinja template a project's own loader fills from its name alone (`prompt_engine.load_prompt(
# "match-email", body=...)` for `prompts/<model>/match-email.j2`): a call named for a prompt.
_PROMPT_CALL = re.compile(r"""prompt\(\s*["']([\w.\-]{1,200})["']""", re.IGNORECASE)
_JINJA_SUFFIXES = (".j2", ".jinja", ".jinja2")


def link(parsed: ParsedFile, context: ParseContext, by_key: bool = False, text: str = "") -> ParsedFile:
    """``parsed`` (a template's) with its slots given the facts of the values its render sites
    pass; with ``by_key`` (a YAML or JSON file of prompts), each prompt's own sites: where code
    fills the text read from the loaded file under the prompt's key (``text``: the file's)."""
    template = PurePosixPath(context.relpath)
    keys = {r.key for r in parsed.requests if r.key is not None and r.slots()} if by_key else set()
    if not parsed.requests or not any(r.slots() for r in parsed.requests) or (by_key and not keys):
        return parsed
    named_by_uri, uri_modules = _uri_sites(parsed, context, template, text) if by_key else ({}, [])
    modules = module_index(context.root).get(template.name.lower(), [])
    beside = [] if by_key else [m for m in _beside(context.root, template) if m not in modules]
    names = _names_of(template)
    includers: list[PurePosixPath] = []
    if not modules and not beside and not by_key:
        # A partial no code names: filled by the render sites of the templates that include it
        # (a Jinja include sees the variables of the template it is included in).
        includers = _includers(context.root, template)
        modules = sorted({m for i in includers for m in module_index(context.root).get(i.name.lower(), [])})
        named_by = [_names_of(i) for i in includers]

        def names(literal: str) -> bool:
            return any(named(literal) for named in named_by)
    if not modules and not beside and not named_by_uri:
        return parsed
    from ctxlint.frontends.python.renders import keyed_sites, render_sites, values_by_key

    project = linking_project(context)

    def named_here(literal: str) -> bool:  # beside its folder, by its name alone as well
        return literal.strip() == template.stem or names(literal)

    # A Jinja template found through a call named for a prompt that gives its name alone.
    stem = template.stem if template.suffix.lower() in _JINJA_SUFFIXES else None

    sites: dict[str | None, list[Site]] = {}  # by key (None: the whole file's)
    for module in modules[:MAX_MODULES] + beside:
        analyzer = project.analyzer(module)
        if analyzer is None:
            continue
        try:
            found = {key: keyed_sites(analyzer, key) for key in sorted(keys)} if by_key \
                else {None: render_sites(analyzer, named_here if module in beside else names, stem)}
        except RecursionError:  # a module too deep to follow: its render sites are not read
            continue
        for key, listed in found.items():
            sites.setdefault(key, []).extend(listed)
        if any(found.values()):
            parsed.dependencies.append(str(module))
    if not any(sites.values()) and not by_key and not includers:
        from ctxlint.frontends.python.filledtext import passed_as_value

        for module in modules[:MAX_MODULES]:
            analyzer = project.analyzer(module)
            if analyzer is not None and passed_as_value(analyzer, names):
                # Text put into another template, never rendered itself: its placeholders are text.
                parsed.dependencies.append(str(module))
                parsed.requests = [_as_text(request) for request in parsed.requests]
                return parsed
    if named_by_uri:
        # A prompt a project loader names by file and keys (`T(".prompts:coder.system")`): its own sites.
        parsed.dependencies.extend(str(module) for module in uri_modules)
        parsed.requests = [_linked(request, values_by_key(named_by_uri[i]), _one_role(named_by_uri[i]))
                           if i in named_by_uri else request for i, request in enumerate(parsed.requests)]
    if any(sites.values()):
        values = {key: values_by_key(listed) for key, listed in sites.items()}
        roles = {key: _one_role(listed) for key, listed in sites.items()}
        parsed.requests = [_linked(request, values[key], roles[key])
                           if (key := request.key if by_key else None) in values and i not in named_by_uri
                           else request for i, request in enumerate(parsed.requests)]
        after = _loop_before_include(context.root, template, includers) if includers else None
        if after is not None:
            parsed.requests = [replace(r, included_after=after) for r in parsed.requests]
            parsed.dependencies.extend(str(Path(context.root).resolve() / i) for i in includers)
    return parsed


def _uri_sites(parsed: ParsedFile, context: ParseContext, template: PurePosixPath, text: str
               ) -> tuple[dict[int, list[Site]], list[Path]]:
    """The render sites of each prompt of a YAML file that a project loader names by a URI of file
    and keys (``prompt_uris.py``), by the prompt's index in ``parsed.requests``; and the modules
    they are in. Only modules whose text gives one of the prompts' keys after a colon are parsed."""
    from ctxlint.frontends.prompt_uris import key_paths, names_prompt, uri_modules
    from ctxlint.frontends.python.renders import render_sites

    root = Path(context.root)
    candidates = uri_modules(root, template)
    if not candidates:
        return {}, []
    lines = key_paths(text)
    wanted = {i: dotted for i, request in enumerate(parsed.requests)
              if request.slots() and (dotted := lines.get(request.anchor.line)) is not None}
    if not wanted:
        return {}, []
    project = None
    found: dict[int, list[Site]] = {}
    used: list[Path] = []
    parsed_modules = 0
    for module in candidates:
        data = _read_small(str(module))
        if data is None:
            continue
        here = {i: dotted for i, dotted in wanted.items() if f":{dotted}".encode() in data}
        if not here:
            continue
        parsed_modules += 1
        if parsed_modules > MAX_MODULES * 2:
            break
        project = project or linking_project(context)
        analyzer = project.analyzer(module)
        if analyzer is None:
            continue
        try:
            for i, dotted in here.items():
                listed = render_sites(analyzer, names_prompt(real_directory(root), module, template, dotted))
                found.setdefault(i, []).extend(listed)
                if listed and module not in used:
                    used.append(module)
        except RecursionError:  # a module too deep to follow: its render sites are not read
            continue
    return {i: listed for i, listed in found.items() if listed}, used


def _as_text(request: Request) -> Request:
    """``request`` with each slot read as the text it is written as, joined to the text around it."""
    segments: list[Segment] = []
    for segment in request.segments:
        last = segments[-1] if segments else None
        if last is not None and last.slot is None and last.role == segment.role \
                and last.message_index == segment.message_index and last.loop == segment.loop:
            span = replace(last.span, end_line=segment.span.end_line, end_column=segment.span.end_column)
            segments[-1] = replace(last, span=span, text=last.text + segment.text)
        else:
            segments.append(replace(segment, slot=None))
    return replace(request, segments=tuple(segments))


def _loop_before_include(root: Path, template: PurePosixPath, includers: list[PurePosixPath]) -> Span | None:
    """Where the first of ``includers`` includes ``template`` after a ``{% for %}`` loop, when
    each of them does: text whose size differs per call comes before the partial wherever it is sent."""
    names = _names_of(template)
    first: Span | None = None
    for includer in includers:
        data = _read_small(str(root / includer))
        text = data.decode("utf-8", errors="replace") if data is not None else ""
        at = next((m.start() for m in _INCLUDE.finditer(text) if names(m.group(1))), None)
        if at is None or _FOR_TAG.search(text, 0, at) is None:
            return None
        if first is None:
            first = Span.point(includer.as_posix(), text.count("\n", 0, at) + 1)
    return first


def _one_role(sites: list[Site]) -> tuple[Role, Span] | None:
    """The role every render site sends the rendered text in (``one_role``), as a role an API has."""
    from ctxlint.frontends.python.renders import one_role

    found = one_role(sites)
    if found is None:
        return None
    try:
        return Role(found[0]), found[1]
    except ValueError:  # a role no API has
        return None


def _linked(request: Request, values: dict[str, list[Value]], sent: tuple[Role, Span] | None) -> Request:
    segments = [_linked_segment(segment, values) if segment.slot is not None else segment
                for segment in request.segments]
    if sent is not None and not request.roles_marked:
        # A bare template whose text the code sends as one message: its role is the code's.
        role, at = sent
        return replace(request, roles_marked=True, sent_at=at,
                       segments=tuple(replace(s, role=role) for s in segments))
    return replace(request, segments=tuple(segments))


def _linked_segment(segment: Segment, values: dict[str, list[Value]]) -> Segment:
    assert segment.slot is not None
    slot = linked_slot(segment.slot, segment.loop, values, "the template is rendered")
    if slot is not segment.slot and slot.passed_at is None:
        # Where the value is passed: a step of any finding about the slot, with or without a source.
        passed = [value.span for name in slot.names or segment.slot.names
                  for value in values.get(name.split(".", 1)[0], ())]
        slot = replace(slot, passed_at=passed[0]) if passed else slot
    return segment if slot is segment.slot else replace(segment, slot=slot)


# Folders of templates a module beside them may name by their file's stem alone.
_TEMPLATE_FOLDERS = frozenset({*TEMPLATE_FOLDERS, "prompts"})


def _beside(root: Path, template: PurePosixPath) -> list[Path]:
    """The modules next to a template's folder that name it by its stem (``faithfulness.py`` with
    ``self._get_prompt("generate_truths", ...)`` beside ``templates/generate_truths.txt``): a helper
    that builds the file's path from a name. Each module is read once per call, at most a few."""
    if template.parent.name.lower() not in _TEMPLATE_FOLDERS or not template.stem:
        return []
    folder = root / template.parent.parent
    needles = (f'"{template.stem}"'.encode(), f"'{template.stem}'".encode())
    found = []
    try:
        candidates = sorted(folder.glob("*.py"))[:MAX_MODULES * 4]
    except OSError:
        return []
    for path in candidates:
        try:
            data = path.read_bytes()[:MAX_FILE_BYTES]
        except OSError:
            continue
        if any(needle in data for needle in needles):
            found.append(path)
        if len(found) >= MAX_MODULES:
            break
    return found


def _names_of(template: PurePosixPath) -> Callable[[str], bool]:
    """Whether a string literal names ``template``: a tail of its path (``answer.j2``,
    ``prompts/answer.j2``), or for a Dotprompt or Prompty file its name alone."""
    parts = template.parts
    by_name = template.suffix in (".prompt", ".prompty")

    def names(literal: str) -> bool:
        tail = [p for p in literal.strip().replace("\\", "/").split("/") if p not in ("", ".")]
        if not tail or len(tail) > len(parts):
            return False
        if by_name and tail == [template.stem]:
            return True
        return tuple(parts[-len(tail):]) == tuple(tail)

    return names


_INDEXES: dict[tuple[Path, bool], dict[str, list[Path]]] = {}
_INCLUDES: dict[Path, dict[str, list[PurePosixPath]]] = {}
_TEMPLATE_SUFFIXES = (".j2", ".jinja", ".jinja2", ".prompt", ".txt", ".md")
_FOR_TAG = re.compile(r"\{%-?\s*for\s")
_INCLUDE = re.compile(r"""\{%-?\s*include\s+["']([^"'\n]{1,200})["']""")
# TypeScript and JavaScript modules, indexed for the prompts they load by name (`ai.prompt("x")`).
_SCRIPTS = (".ts", ".tsx", ".mts", ".cts", ".js", ".mjs", ".cjs", ".jsx")


def linking_project(context: ParseContext) -> Project:
    """The project whose Python modules a template file is linked to, begun for this file."""
    from ctxlint.frameworks import cached_frameworks
    from ctxlint.frontends.python.analyzer import load_module
    from ctxlint.frontends.python.project import project_for

    project = project_for(context.root, cached_frameworks(context.framework_files, context.builtin_frameworks),
                          load_module, context.not_shipped)
    project.begin()
    return project


def module_index(root: Path) -> dict[str, list[Path]]:
    """The project's Python modules by the template file names their string literals give."""
    return _index(root, scripts=False)


def script_index(root: Path) -> dict[str, list[Path]]:
    """The project's TypeScript and JavaScript modules by the prompt files they load by name
    (built only when a prompt file asks: most projects never need it)."""
    return _index(root, scripts=True)


def _index(root: Path, scripts: bool) -> dict[str, list[Path]]:
    key = (real_directory(root), scripts)
    if key not in _INDEXES:
        if not any(k[0] == key[0] for k in _INDEXES):
            _INDEXES.clear()  # one project per run
        _INDEXES[key] = _build(key[0], _SCRIPTS if scripts else (".py",))
    return _INDEXES[key]


def _build(root: Path, suffixes: tuple[str, ...]) -> dict[str, list[Path]]:
    index: dict[str, list[Path]] = {}
    seen = 0
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _SKIPPED_DIRS)
        for name in sorted(files):
            if not name.endswith(suffixes):
                continue
            seen += 1
            if seen > MAX_FILES:
                return index
            path = os.path.join(folder, name)
            data = _read_small(path)
            if data is None:
                continue
            if suffixes == _SCRIPTS:
                _index_script(path, data, index)
            # Most modules name no template: the bytes say so before any decoding.
            elif any(marker in data for marker in _MARKERS):
                for key in _named_templates(data.decode("utf-8", errors="replace")):
                    index.setdefault(key, []).append(Path(path))
    return index


def _includers(root: Path, template: PurePosixPath) -> list[PurePosixPath]:
    """The template files of the project (relative to ``root``) that include ``template``
    (``{% include "partials/actions.prompt" %}``)."""
    names = _names_of(template)
    return sorted({includer for literal, found in include_index(root).items() if names(literal)
                   for includer in found})


def include_index(root: Path) -> dict[str, list[PurePosixPath]]:
    """The project's template files by the paths their ``{% include %}`` tags give."""
    key = real_directory(root)
    if key not in _INCLUDES:
        _INCLUDES.clear()  # one project per run
        index: dict[str, list[PurePosixPath]] = {}
        seen = 0
        for folder, dirs, files in os.walk(key):
            dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _SKIPPED_DIRS)
            for name in sorted(files):
                if not name.lower().endswith(_TEMPLATE_SUFFIXES):
                    continue
                seen += 1
                if seen > MAX_FILES:
                    break
                path = os.path.join(folder, name)
                data = _read_small(path)
                if data is None or b"include" not in data:
                    continue
                relative = PurePosixPath(Path(path).relative_to(key).as_posix())
                for match in _INCLUDE.finditer(data.decode("utf-8", errors="replace")):
                    index.setdefault(match.group(1), []).append(relative)
            if seen > MAX_FILES:
                break  # the cap reached: no more folders are listed
        _INCLUDES[key] = index
    return _INCLUDES[key]


def _read_small(path: str) -> bytes | None:
    """The bytes of a regular file of at most ``MAX_FILE_BYTES``; None for a larger or unreadable
    one, or one that is no regular file (reading a FIFO would wait for a writer)."""
    try:
        status = os.stat(path)
        if not stat.S_ISREG(status.st_mode) or status.st_size > MAX_FILE_BYTES:
            return None
        with open(path, "rb") as handle:
            return handle.read()
    except OSError:
        return None


def _index_script(path: str, data: bytes, scripts: dict[str, list[Path]]) -> None:
    if b"prompt(" in data:
        for base in _loaded_names(data.decode("utf-8", errors="replace")):
            scripts.setdefault(f"{base}.prompt", []).append(Path(path))


def _named_templates(text: str) -> set[str]:
    keys = set()
    for match in _FILE_LITERAL.finditer(text):
        keys.add(match.group(1).replace("\\", "/").rsplit("/", 1)[-1].lower())
    for base in _loaded_names(text):
        keys.update((f"{base}.prompt", f"{base}.prompty"))
    for match in _PROMPT_CALL.finditer(text):
        keys.update(f"{match.group(1).lower()}{suffix}" for suffix in _JINJA_SUFFIXES)
    return keys


def _loaded_names(text: str) -> Iterator[str]:
    """The names of the prompts ``text`` loads by name (``ai.prompt("reviews/summarise")`` gives
    ``summarise``), lower-cased as the index keys them."""
    for match in _PROMPT_NAME.finditer(text):
        yield match.group(1).rsplit("/", 1)[-1].lower()
