"""What the order passes take for where ordered text arrives (orderprompts.py): the text of a chat
message built with its role, a keyword the code names for what a model is given, a value or call
named for a prompt where no call that asks a model is seen, and when two observations of one
listing reach the same place; what shows a set holds strings (``str.join``), and a name that is
given other text again, after which its reads are not followed."""

from __future__ import annotations

import ast
from dataclasses import replace
from typing import TYPE_CHECKING

from ctxlint.frontends.code.words import matches
from ctxlint.frontends.python.calls import last_name
from ctxlint.frontends.python.cutreach import FOR_MODEL
from ctxlint.frontends.python.fieldreads import field_far
from ctxlint.frontends.python.knowledge import ANY_ITEMS, LISTINGS
from ctxlint.frontends.python.literals import string_value
from ctxlint.frontends.python.loopshapes import added_name, block_statements
from ctxlint.frontends.python.ordering import PASSED_BY, listings_walked, own_nodes
from ctxlint.frontends.python.stringsets import copy_of, never_kept
from ctxlint.frontends.python.values import Env
from ctxlint.model import Evidence, EvidenceKind, Observation

if TYPE_CHECKING:
    from ctxlint.frontends.python.orderprompts import OrderPrompts

Function = ast.FunctionDef | ast.AsyncFunctionDef


def same_far_sink(one: Observation, other: Observation) -> bool:
    """Two listings' texts that reach the same prompt of another module: one function's list,
    looped over by the one that returns its text, reported once (at the first)."""
    sinks = [o.source.flow[-1].span for o in (one, other) if o.source and o.source.flow]
    return len(sinks) == 2 and sinks[0] is not None and sinks[0] == sinks[1] and sinks[0].path != one.span.path \
        and _joined(one, other)


def _joined(one: Observation, other: Observation) -> bool:
    """Whether the two paths meet in this module before they leave it: a line of one is a step of
    the other (the list a function returns, and the loop of its caller over it). Two copies made in
    two functions (`Context(terms=list(state.terms))` on two paths) that only meet in another module
    are two places to sort, each reported."""
    lines = [{e.span.line for e in o.source.flow if e.span is not None and e.span.path == one.span.path}
             | {o.span.line} for o in (one, other) if o.source is not None]
    return len(lines) < 2 or bool(lines[0] & lines[1])


def same_listing_sink(one: Observation, other: Observation) -> bool:
    """A listing's text, and the same text again where the function it is returned to loops over
    it or joins it, reaching one sink: one problem, reported once."""
    if one.source is None or other.source is None or one.source.detail != other.source.detail \
            or one.source.detail not in ANY_ITEMS or not one.source.flow or not other.source.flow:
        return False
    return one.source.flow[-1].span == other.source.flow[-1].span


def same_callers(one: Observation, other: Observation) -> bool:
    """Two texts one function builds from the collection its callers pass it (``passed_in``), each
    reaching a prompt: one problem, fixed where the callers take the order, reported once."""
    steps = [[e.span for e in o.source.flow if PASSED_BY in e.text] if o.source else [] for o in (one, other)]
    return bool(steps[0]) and steps[0] == steps[1]


def for_model_keyword(call: ast.Call) -> ast.keyword | None:
    """The keyword named for what a model is given (``result_for_llm=``, ``text_for_model=``)."""
    return next((k for k in call.keywords if k.arg is not None and matches(k.arg.lower(), FOR_MODEL)), None)


def for_model(call: ast.Call) -> ast.expr | None:
    """The value of that keyword."""
    keyword = for_model_keyword(call)
    return keyword.value if keyword is not None else None


def message_text(node: ast.AST) -> ast.expr | None:
    """The text of a chat message built with its role: ``ChatMessage(content=text, role="user")``
    (a class of the project's own), ``dict(role="user", content=text)``, ``{"role": ..., "content": text}``."""
    if isinstance(node, ast.Call):
        called, given = last_name(node.func) or "", {k.arg: k.value for k in node.keywords}
        if (called == "dict" or (called.endswith("Message") and called[:1].isupper())) and "role" in given:
            return given.get("content")
    if isinstance(node, ast.Dict):
        keyed = {k.value: v for k, v in zip(node.keys, node.values, strict=True) if isinstance(k, ast.Constant)}
        if "role" in keyed:
            return keyed.get("content")
    return None


def message_per_item(part: OrderPrompts, fn: Function, shown: ast.expr, carried: set[str]
                     ) -> tuple[ast.expr, str] | None:
    """A chat message (``{"role": ..., "content": text}``) that a loop over ``shown`` builds from
    each item and adds to a list started before the loop (``asked.append(...)``): the list holds
    the messages in the collection's order. A message that does not use the item (the same text
    each time), or a list started again for each item, is not."""
    loop = part.m.parents.get(id(shown))
    if not isinstance(loop, (ast.For, ast.AsyncFor)) or loop.iter is not shown:
        return None
    targets = loop.target.elts if isinstance(loop.target, (ast.Tuple, ast.List)) else [loop.target]
    items = part.spread(fn, {name for t in targets if (name := part.m.dotted(t))})
    inner = [node for statement in loop.body for node in ast.walk(statement)]
    restarted = {n.id for n in inner if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    for call in inner:
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.args
                and call.func.attr in ("append", "insert") and isinstance(call.func.value, ast.Name)):
            continue
        added_to, message = call.func.value.id, call.args[-1]
        text = message_text(message)
        if added_to in carried and added_to not in restarted and text is not None and part.mentions(text, items):
            return message, added_to
    return None


def per_item_evidence(part: OrderPrompts, per_item: tuple[ast.expr, str], fn: Function, shown: ast.expr,
                      env: Env, detail: str, steps: list[Evidence]) -> tuple[str, str]:
    """The sink and the consequence of a chat message a loop builds from each item, with the
    listing calls that give the walked name its order put first among ``steps``."""
    message, added_to = per_item
    loop = part.m.parents.get(id(shown))
    if detail in LISTINGS and isinstance(loop, (ast.For, ast.AsyncFor)):
        listings = [call for call in listings_walked(part.flow, loop, fn, env) if call is not shown]
        steps[:0] = [Evidence(EvidenceKind.FLOW, f"`{part.m.code(call)}` gives `{part.m.code(shown)}` its order",
                              part.m.span(call)) for call in listings]
    return (f"a chat message built for each item and added to `{added_to}`",
            f"its order becomes the order of the chat messages the loop builds from its items and adds to "
            f"`{added_to}` (line {message.lineno})")


def tool_result(message: ast.Dict) -> bool:
    """Whether a chat message is a tool's result: written in the tool's role (``{"role": "tool"}``)."""
    return any(key is not None and string_value(key) == "role" and string_value(value) in ("tool", "function")
               for key, value in zip(message.keys, message.values, strict=True))


def tool_result_said(asked: ast.expr | ast.stmt, called: str, line: int) -> tuple[str, str, str] | None:
    """What ordered text arriving in a tool's result message (newest when added, then kept as
    written) is said to do: its order changes no prefix a later call could read from the cache."""
    if not (isinstance(asked, ast.Dict) and tool_result(asked)):
        return None
    return ("order-in-tool-result", f"put into the tool's result message `{called}`",
            f"its order becomes the order of the text of the tool's result message `{called}` (line {line}), "
            "added once to the end of the conversation")


ORDER_IN_PROMPT_TEXT = "order-in-prompt-text"  # the kind of evidence (rules/cache/CTX104)
LISTING_REACHES_PROMPT = "listing-reaches-prompt"  # ... of a directory listing


def kept_for_settings(part: OrderPrompts, shown: ast.expr) -> ast.Assign | None:
    """The assignment of the ordered text itself to an entry of a dict a settings template prints."""
    statement = part.m.parents.get(id(shown))
    if isinstance(statement, ast.Attribute):  # `", ".join(names).strip()`
        statement = part.m.parents.get(id(part.m.parents.get(id(statement))))
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1 \
            and part.cut_sites.settings.rendered_slot(statement.targets[0]) is not None:
        return statement
    return None


def given_again(part: OrderPrompts, fn: Function, shown: ast.expr, carried: set[str]) -> bool:
    """Whether a name that holds the ordered text is given other text later in ``fn``
    (``header = fallback`` in each arm of an ``if``): the reads after it are not told apart
    by which assignment they see, so the text is not followed."""
    statement = part.statement_of(shown)
    after = getattr(statement, "end_lineno", None) or 0
    nodes = own_nodes(fn)
    built = part.spread(fn, carried)  # `md_files = first + rest`, both built from `md_files`, still holds it
    again = [node.lineno for node in nodes if isinstance(node, ast.Assign) and node.lineno > after
             and not part.mentions(node.value, built)
             and any(isinstance(t, ast.Name) and t.id in carried for t in node.targets)]
    # `blocks.append(block)` before `block = ...` again: the text went on in `blocks` first
    return bool(again) and not any(after < getattr(node, "lineno", 0) < min(again) and part.built_from(node, carried)
                                   - carried for node in nodes)


def read_before_given_again(fn: Function, statement: ast.Assign | ast.AugAssign) -> bool:
    """Whether the name ``statement`` gives text is read before ``fn`` gives it other text
    (``prompt = f"...{names}"``, ``editor.run(prompt)``, then ``prompt = "..."``): that read sees
    this text, whichever the later ones see."""
    target = statement.target if isinstance(statement, ast.AugAssign) else \
        statement.targets[0] if len(statement.targets) == 1 else None
    if not isinstance(target, ast.Name):
        return False
    end = statement.end_lineno or statement.lineno
    nodes = own_nodes(fn)
    again = min((node.lineno for node in nodes if isinstance(node, ast.Assign) and node.lineno > end
                 and any(isinstance(t, ast.Name) and t.id == target.id for t in node.targets)), default=None)
    return any(isinstance(node, ast.Name) and node.id == target.id and isinstance(node.ctx, ast.Load)
               and end < node.lineno and (again is None or node.lineno < again) for node in nodes)


def into_prompt_text(part: OrderPrompts, fn: Function, shown: ast.expr, carried: set[str], steps: list[Evidence],
                     detail: str) -> tuple[Evidence | None, tuple[str, str, str] | None]:
    """Where no call that asks a model is seen: the set's (or the listing's) text written into a
    value named for a prompt, or passed to a call named for one (``user_prompt.format(rules="\\n".join(rules))``,
    then ``self.chat(content=user_prompt)`` of a base class), as a cut is followed (cutreach.py).
    The steps on the way are added to ``steps``; the sink's step is returned, with what it is said to do.
    A listing's text is followed so only where the function does not return it (that is followed into the
    project's other modules, and a prompt of this module that holds it is the request's own finding)."""
    if detail not in ("set", "frozenset") and detail not in LISTINGS:
        return None, None
    reach = part.cut_sites.reach
    statement = part.statement_of(shown)
    if isinstance(statement, (ast.For, ast.AsyncFor)) and statement.iter is shown \
            or isinstance(statement, ast.Assign) and carried and part.given_to(shown) is not None:
        # (a set handed to a call whose result is kept: what the call gives back, in the set's order)
        found = next((f for name in sorted(carried) if (f := reach.name_far(name, statement, fn))), None)
        keyword, made = part.m.parents.get(id(shown)), part.given_to(shown)
        if found is None and isinstance(keyword, ast.keyword) and keyword.arg is not None and made is not None:
            found = field_far(reach, made, keyword.arg, fn)  # `Context(terms=list(state.terms))`: fieldreads.py
        if found is None and made is not None:
            found = reach.reach_far(shown, fn)  # into the method given it: `self.matcher.analyze(terms=list(...))`
            if found:  # what reaches the prompt is the list the call is given, not what it gives back
                _given_to_call(part, steps, shown, made)
    else:
        found = reach.reach_far(shown, fn)
    if not found:
        return None, None
    steps.extend(found[:-1])
    sink = found[-1]
    line = "" if sink.span is None else f" (line {sink.span.line})" if sink.span.path == part.m.path \
        else f" ({sink.span.path}:{sink.span.line})"
    kind = LISTING_REACHES_PROMPT if detail in LISTINGS else ORDER_IN_PROMPT_TEXT
    return sink, (kind, sink.text, f"its order becomes the order of the text {sink.text}{line}")


def written_into_prompt(part: OrderPrompts, fn: Function, shown: ast.expr, detail: str) -> bool:
    """Whether the ordered text of a set or a listing is written straight into a value named for a
    prompt (``prompt = f"Files: {names}"``), the one step to where it is followed as a prompt's text,
    and the name is read before it is given other text (``read_before_given_again``)."""
    if detail not in ("set", "frozenset") and detail not in LISTINGS:
        return False
    statement = part.statement_of(shown)
    if not isinstance(statement, (ast.Assign, ast.AugAssign)) or not read_before_given_again(fn, statement):
        return False  # a loop that adds each item: the name it adds to is what the later reads see
    found = part.cut_sites.reach.reach_far(shown, fn)
    return found is not None and len(found) == 1 and found[0].kind is EvidenceKind.SINK \
        and found[0].span is not None and statement.lineno <= found[0].span.line <= (statement.end_lineno or 0)


def joined_whole(shown: ast.expr, collection: ast.expr) -> bool:
    """``"\\n".join(rules)``: ``str.join`` takes only strings (any other item raises), so a set it
    joins as it is holds strings."""
    if isinstance(collection, ast.SetComp) and never_kept(collection):
        return False  # always empty: nothing is joined
    return isinstance(shown, ast.Call) and isinstance(shown.func, ast.Attribute) and shown.func.attr == "join" \
        and bool(shown.args) and (shown.args[0] is collection or copy_of(shown.args[0]) is collection)


def text_given(fn: Function, given: set[str]) -> list[str]:
    """The names among ``given`` (parameters the ordered text spreads to) that ``fn`` writes text
    onto (``inp += page``, ``inp = inp + page``), not only adds items to as a list the caller passes
    (``history.append(text)``, a chat log): a conversation grows at its end, so its earlier turns
    stay a cacheable prefix."""
    return sorted({node.target.id for node in own_nodes(fn) if isinstance(node, ast.AugAssign)
                   and isinstance(node.target, ast.Name) and node.target.id in given} | {
        target.id for node in own_nodes(fn) if isinstance(node, ast.Assign) for target in node.targets
        if isinstance(target, ast.Name) and target.id in given
        and any(isinstance(n, ast.Name) and n.id == target.id for n in ast.walk(node.value))})


def passed_in(part: OrderPrompts, fn: Function, collection: ast.expr, env: Env) -> tuple[Evidence, ...]:
    """Where the order comes from the callers of ``fn``: a collection built from a parameter that
    every call fills with one in no fixed order (``batch = manifest[:16]``, ``seen.extend(batch)``),
    the calls that pass it, each placed where the caller's collection takes its order."""
    used = {node.id for node in ast.walk(collection) if isinstance(node, ast.Name)}
    params = [a.arg for a in (*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs)]
    for param in params:
        if param not in ("self", "cls") and used & part.spread(fn, {param}) \
                and part.flow.passed_unordered(ast.Name(id=param, ctx=ast.Load()), env) is not None:
            return part.flow.callers_passing(fn, param, env)
    return ()


def orderless_additions(fn: Function, loop: ast.For | ast.AsyncFor) -> set[str]:
    """The names a loop adds to that hold no order of its items: a list ``fn``'s caller passes it
    (``chatbot.append(...)``, ``chatbot`` a parameter: a UI's chat log), which builds no text of
    ``fn``'s own and is handed on as it is (ordersites.py reads it alike); one started again for
    each item (``notes = []`` in the loop), which holds one item's text at a time."""
    params = {a.arg for a in (*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs)}
    restarted = {t.id for statement in block_statements(loop.body) if isinstance(statement, ast.Assign)
                 for t in statement.targets if isinstance(t, ast.Name) and not any(
                     isinstance(n, ast.Name) and n.id == t.id for n in ast.walk(statement.value))}
    return restarted | {name for statement in block_statements(loop.body) if isinstance(statement, ast.Expr)
                        and isinstance(statement.value, ast.Call) and (name := added_name(statement.value)) in params}


def _given_to_call(part: OrderPrompts, steps: list[Evidence], shown: ast.expr, call: ast.Call) -> None:
    """Say of the step at ``shown`` that it gives the order of the list passed to ``call``."""
    span = part.m.span(shown)
    for index, step in enumerate(steps):
        if step.kind is EvidenceKind.FLOW and step.span == span and " gives the order of " in step.text:
            head = step.text.split(" gives the order of ")[0]
            steps[index] = replace(step, text=f"{head} gives the order of the list passed to "
                                             f"`{part.m.code(call.func)}(...)`")
