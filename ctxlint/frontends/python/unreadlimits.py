"""A settings field named as a model's output limit that no code of the project reads, in a
settings class whose other limit field the project sends as a request's limit:
``reduce_max_tokens`` beside ``reduce_max_completion_tokens``, which the search sends as
``max_completion_tokens``. A user who sets the first one believes the answer is bounded; no
request is ever sent with it. Reported at the field."""

from __future__ import annotations

import ast
import re

from ctxlint.discover import glob_any
from ctxlint.frontends.python.unit import Unit
from ctxlint.model import Evidence, EvidenceKind, Request

# The kind of evidence of such a field (rules/**/CTX201).
LIMIT_FIELD_UNREAD = "limit-field-unread"
# A field named as the number of tokens a model may generate (`primer_llm_max_tokens`,
# `local_search_llm_max_gen_tokens`) ...
_OUTPUT_LIMIT_FIELD = re.compile(r"(?:^|_)max_(?:gen_|output_|completion_|new_|gen_completion_)?tokens$")
# ... and not as a budget of what is sent (`data_max_tokens`, `max_context_tokens`).
_INPUT_WORDS = re.compile(r"(?:^|_)(?:context|data|input|prompt|chunk|history|window|text|embedding)(?:_|$)")
_SETTINGS_BASES = frozenset({"BaseModel", "BaseSettings"})


def unread_limit_fields(m: Unit) -> list[Request]:
    """One request per unread limit field of each settings class of the module."""
    project, file = m.project, m.file
    if project is None or file is None or "tokens" not in m.text:
        return []
    found = []
    for cls in (n for n in m.tree.body if isinstance(n, ast.ClassDef)):
        fields = settings_limit_fields(cls)
        sent = next(((name, at) for name, _ in fields if (at := project.sent_as_limit(name)) is not None), None)
        if sent is None:
            continue
        sent_name, (sent_path, sent_line) = sent
        for name, statement in fields:
            if name == sent_name or _read_outside(m, cls, name) or any(
                    path != file and not glob_any(project.not_shipped, path.relative_to(project.root).as_posix())
                    for path in project.field_readers(name)):
                continue  # read by the module, or by another outside tests and examples
            anchor = m.span(statement.target)
            found.append(Request(
                path=m.path, anchor=anchor, declares_settings=True, settings_hint=f"`{name}`",
                reserve_kind=LIMIT_FIELD_UNREAD,
                reserve_evidence=(
                    Evidence(EvidenceKind.SOURCE, f"`{name}`, a setting named as an output limit, is read by no "
                             "code of the project", anchor),
                    Evidence(EvidenceKind.FLOW, f"`{sent_name}` of the same settings is sent as a request's limit "
                             f"({sent_path}, line {sent_line})", None))))
    return found


def settings_limit_fields(cls: ast.ClassDef) -> list[tuple[str, ast.AnnAssign]]:
    """The fields of a settings class named as an output limit, when it has two or more (one of
    which the project may send while it drops another); none for any other class."""
    fields = [(s.target.id, s) for s in cls.body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)
              and _OUTPUT_LIMIT_FIELD.search(s.target.id) and not _INPUT_WORDS.search(s.target.id)]
    return fields if len(fields) > 1 and _settings_class(cls) else []  # the cheap test first: every class pays it


def _settings_class(cls: ast.ClassDef) -> bool:
    """A pydantic model or a dataclass: a class whose annotated names are its fields."""
    def last(node: ast.expr) -> str:
        return node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")

    bases = {last(b) for b in cls.bases}
    decorators = {last(d.func if isinstance(d, ast.Call) else d) for d in cls.decorator_list}
    return bool(bases & _SETTINGS_BASES) or "dataclass" in decorators


def _read_outside(m: Unit, cls: ast.ClassDef, name: str) -> bool:
    """Whether the module reads the field outside the class's own body (where a default taken
    from a table of defaults of the same name is not a read of it)."""
    inside = {id(n) for n in ast.walk(cls)}
    return any(id(n) not in inside and (isinstance(n, ast.Attribute) and n.attr == name
                                        or isinstance(n, ast.Constant) and n.value == name)
               for n in ast.walk(m.tree))
