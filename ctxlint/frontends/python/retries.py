"""A cut made again on a retry: ``content = content[:n]`` before ``while content == "": ...`` and
the same assignment inside the loop. The cut is one finding, reported before the loop; the retry
is a step of its evidence, so a reader sees both places that leave the text cut."""

from __future__ import annotations

import ast
from dataclasses import replace

from ctxlint.model import Evidence, EvidenceKind, Observation, Source


def assigned_name(parents: dict[int, ast.AST], node: ast.expr) -> str | None:
    """The one local name a statement gives ``node`` to (``content = content[:n]``)."""
    statement = parents.get(id(node))
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and \
            isinstance(statement.targets[0], ast.Name) and statement.value is node:
        return statement.targets[0].id
    return None


def retried_name(parents: dict[int, ast.AST], node: ast.expr) -> str | None:
    """The name of a cut made again inside a loop that tests that name (``while content == ""``)."""
    name = assigned_name(parents, node)
    loop = parents.get(id(parents.get(id(node))))
    if name is not None and isinstance(loop, ast.While) and any(
            isinstance(n, ast.Name) and n.id == name for n in ast.walk(loop.test)):
        return name
    return None


def with_retry(observation: Observation, retry: Source) -> Observation:
    """The observation of a cut, with the same cut made on a retry as a step of its evidence."""
    source = observation.source
    if source is None:
        return observation
    step = Evidence(EvidenceKind.FLOW, f"`{retry.detail}` cuts it again on a retry, with no marker either",
                    retry.span)
    return replace(observation, source=replace(source, flow=(*source.flow, step)))
