"""Trust: third-party content must be labelled as data, escaped, and kept out of the system role.

Each finding carries the evidence that the content is third-party (a known source, the author's
annotation, a name, the prompt's own description of it) and its confidence, which follows the
weakest link: a name alone is low, so a plain run does not report it.
"""

from __future__ import annotations

from ctxlint.analysis import trust
from ctxlint.checks import STRINGS, file_check, request_check
from ctxlint.context import CheckContext
from ctxlint.model import Evidence, EvidenceKind, Observation, ParsedFile, Request, Role, Segment, Span

# What the front-end observed of a role map that sends tool results as system messages (rolemaps.py),
# written in the code or kept from a client class's default.
TOOL_ROLE_AS_SYSTEM = "tool-role-as-system"
DEFAULT_TOOL_ROLE_AS_SYSTEM = "default-tool-role-as-system"

_TRUST_OPTIONS = {"untrusted": STRINGS, "trusted": STRINGS, "metadata": STRINGS, "questions": STRINGS,
                  "content_words": STRINGS, "content_names": STRINGS, "ambiguous_names": STRINGS,
                  "metadata_words": STRINGS, "carrier_words": STRINGS, "web_words": STRINGS}


def _carries(segments: list[Segment], found: trust.Untrusted) -> str:
    """`page` carries untrusted content (requests.get(...).text, line 9)` or, on weaker
    evidence, what the evidence is; several fields of one item each named, the source once."""
    names = list(dict.fromkeys(f"`{_said(segment)}`" for segment in segments))
    subject = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
    one = len(names) == 1
    if found.proven:
        return f"{subject} {'carries' if one else 'carry'} untrusted content ({found.reason})"
    return f"{subject} {'looks' if one else 'look'} like third-party content ({found.reason})"


def _at(segment: Segment) -> Span:
    """Where a finding about the segment is reported: where its value enters the prompt, when it
    was built elsewhere as content with no words of its own (``Slot.entered_at``), else the slot."""
    return segment.slot.entered_at if segment.slot is not None and segment.slot.entered_at else segment.span


def _said(segment: Segment) -> str:
    """What a finding calls the segment: the field its value enters by, or its own expression."""
    return segment.slot.entered_as if segment.slot is not None and segment.slot.entered_as else segment.text


def _built_at(segment: Segment, evidence: tuple[Evidence, ...]) -> tuple[Evidence, ...]:
    """``evidence`` with the slot's own place as a step, when the finding is reported where it enters."""
    if _at(segment) is segment.span:
        return evidence
    return (*evidence, Evidence(EvidenceKind.FLOW, f"built at {segment.span.path}:{segment.span.line}",
                                segment.span))


def _per_source(found: list[tuple[int, Segment, trust.Untrusted]]) -> list[tuple[list[Segment], trust.Untrusted]]:
    """The untrusted slots, those on one line that carry the same source taken together: a value
    built from several fields of one fetched item (`File: ${s.path}\n${s.summary}`) is one piece
    of third-party content, fixed by one delimiter around it, and reported once."""
    groups: dict[tuple[str, int, Role, object], tuple[list[Segment], trust.Untrusted]] = {}
    for _, segment, carried in found:
        source = next((step.span for step in carried.evidence if step.kind is EvidenceKind.SOURCE and step.span),
                      None)
        key = (_at(segment).path, _at(segment).line, segment.role, source or (carried.kind, carried.reason))
        if key in groups:
            groups[key][0].append(segment)
        else:
            groups[key] = ([segment], carried)
    return list(groups.values())


@request_check(options=_TRUST_OPTIONS)
def untrusted_without_label(request: Request, ctx: CheckContext) -> None:
    options = trust.TrustOptions.of(ctx.options)
    unlabelled = []
    for index, segment, found in ctx.analysis.untrusted(options):
        if segment.role is Role.TOOL:
            continue  # a tool message: the API's tool role already marks its content as data
        label = ctx.analysis.labels().get(index)  # read only for a request with such a slot
        if label is None or not trust.marks(label, segment, options):
            unlabelled.append((index, segment, found))
    for segments, found in _per_source(unlabelled):
        ctx.report(
            _at(segments[0]),
            f"{_carries(segments, found)} with no trust label, so instructions hidden in it read "
            "like yours. Wrap it in a delimiter such as <untrusted_document source=\"…\">…"
            "</untrusted_document> and escape it.",
            kind=found.kind, evidence=_built_at(segments[0], found.evidence),
        )


@file_check(options=_TRUST_OPTIONS)
def untrusted_in_system(parsed: ParsedFile, ctx: CheckContext) -> None:
    """Third-party content in the system or developer role, or in a tool description, in each
    request of the file; and a role map of the module that sends tool results as system
    messages (an observation of the front-end: rolemaps.py)."""
    for request in parsed.requests:
        ctx.request = request
        _in_system(request, ctx)
    ctx.request = None
    for observation in parsed.observations:
        if observation.kind == DEFAULT_TOOL_ROLE_AS_SYSTEM and observation.source is not None:
            _default_role_map(observation, ctx)
        if observation.kind != TOOL_ROLE_AS_SYSTEM or observation.source is None:
            continue
        _role_map(observation, ctx, "role-map",
                  f"This role map sends the `{observation.detail}` role as `system`, so every tool result, search "
                  "result and fetched page the agent reads reaches the model with the authority of your own "
                  f"instructions. Map `{observation.detail}` to the API's tool role (or `user`), and delimit what "
                  "it carries.")


def _default_role_map(observation: Observation, ctx: CheckContext) -> None:
    """A model client built with no role template of its own, whose class's default sends a
    tool's role as ``system`` (rolemaps.DEFAULT_MAPS)."""
    client, role = observation.detail.split(":", 1)
    _role_map(observation, ctx, "default-role-map",
              f"`{client}` is built with no `meta_template`, and its default sends the `{role}` role as `system`, "
              "so every tool result, search result and fetched page the agent reads reaches the model with the "
              f"authority of your own instructions. Pass a `meta_template` that maps `{role}` to `user` (or the "
              "API's tool role), and delimit what it carries.")


def _role_map(observation: Observation, ctx: CheckContext, kind: str, message: str) -> None:
    """A role map (written, or a client's default) that sends a tool's role as ``system``."""
    assert observation.source is not None
    ctx.report(observation.span, message, kind=kind,
               evidence=(Evidence(EvidenceKind.SOURCE, observation.source.detail, observation.span, False),
                         Evidence(EvidenceKind.SINK, "sent in the system role", observation.span)))


def _in_system(request: Request, ctx: CheckContext) -> None:
    if not request.roles_marked:
        return  # a bare template: which role it is sent in is decided elsewhere
    found = [item for item in ctx.analysis.untrusted(trust.TrustOptions.of(ctx.options))
             if item[1].role in (Role.TOOLS, Role.SYSTEM, Role.DEVELOPER)]
    for segments, carried in _per_source(found):
        role = segments[0].role
        if role is Role.TOOLS:
            ctx.report(
                _at(segments[0]),
                f"{_carries(segments, carried)} in a tool description, which the model reads as the "
                "developer's own instructions for the tool. Keep descriptions static; pass the content "
                "in a tool result or a user message, wrapped in a delimiter and escaped.",
                kind=carried.kind, evidence=_built_at(segments[0], carried.evidence),
            )
        else:
            ctx.report(
                _at(segments[0]),
                f"{_carries(segments, carried)} in the {role.value} role, where text has the most "
                "authority. Move it to a user message, wrapped in a delimiter and escaped.",
                kind=carried.kind, evidence=_built_at(segments[0], carried.evidence),
            )


@request_check(options={**_TRUST_OPTIONS, "escapes": STRINGS, "verbatim_words": STRINGS})
def unescaped_delimited_content(request: Request, ctx: CheckContext) -> None:
    """Untrusted content inside a tag that it could close. Code and program output (a tag or slot
    named ``code``, ``observation``, ``output``...) must reach the model as written, so escaping
    would garble it: there the advice is a tag named with a per-call nonce, and the finding is its
    own kind (``verbatim``), measured apart."""
    for index, segment, found in ctx.analysis.untrusted(trust.TrustOptions.of(ctx.options)):
        label = ctx.analysis.labels().get(index)
        if label is None or label.kind not in ("tag", "attribute") or trust.escaped(segment, ctx.options["escapes"]):
            continue
        if trust.unforgeable(label):
            continue  # `<transcript-{nonce}>`: content cannot write a closing tag it cannot guess
        where = (f"sits inside <{label.name}> but is not escaped: content that contains </{label.name}> "
                 "closes the label early" if label.kind == "tag" else
                 f"sits in an attribute of <{label.name}> but is not escaped: a quote in it ends the "
                 "attribute and the tag")
        verbatim = trust.verbatim_word(label, segment, tuple(ctx.options["verbatim_words"]))
        if verbatim is not None and label.kind == "tag":
            ctx.report(
                _at(segment),
                f"`{_said(segment)}` ({found.reason}) {where}, and what follows reads as instructions. Escaping "
                f"would change {verbatim} text the model must read as written: name the tag with a per-call "
                f"nonce (`<{label.name}-{{nonce}}>`) that the content cannot guess.",
                kind="verbatim", evidence=_built_at(segment, found.evidence),
            )
            continue
        ctx.report(
            _at(segment),
            f"`{_said(segment)}` ({found.reason}) {where}, and what follows reads as instructions. "
            "Escape it (`| e`, `| tojson`, html.escape) or datamark it.",
            kind=found.kind, evidence=_built_at(segment, found.evidence),
        )
