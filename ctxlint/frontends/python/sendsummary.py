"""What a function sends, read once with its parameters unknown (wrappers.py): the request of its
sink call, whose slots that are exactly one of its parameters are holes its callers fill."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ctxlint.frameworks import Sink
from ctxlint.frontends.python.scopes import FunctionNode
from ctxlint.model import Evidence, Request, Segment

if TYPE_CHECKING:
    from ctxlint.frontends.python.analyzer import Analyzer


@dataclass(frozen=True)
class Summary:
    """What a function sends, read with its parameters unknown.

    ``request`` is the request of its sink call; a slot of it that is exactly one of
    ``params`` is a hole the caller fills. ``limit_param`` names the parameter its output limit
    comes from (``max_tokens=max_tokens``), with that parameter's default; ``kwargs`` the
    ``**kwargs`` parameter spread into the call, whose keywords the caller gives.
    """

    function: FunctionNode
    request: Request
    params: tuple[str, ...]
    limit_key: str
    limit_param: str | None
    limit_default: ast.expr | None
    kwargs: str | None
    sink_call: ast.Call
    # A helper that posts its parameter as the whole body of an HTTP request (`_request_api(path,
    # payload)`): each caller's dict is the request, read where the caller builds it.
    posted: tuple[str, Sink] | None = None
    # Whether ``kwargs`` is the request's only way to a limit: the call would be a request with
    # none without it, and no function on the way names a limit or does more than pass it on.
    limit_from_kwargs: bool = False
    # With it, the settings field the request also spreads, which the user configures and which is
    # empty by default (`**model_config.call_args`): the limit is left to configuration.
    settings: Evidence | None = None
    # The module of the sink call when it is not the function's own (a wrapper of a wrapper
    # of another module).
    sender: Analyzer | None = None
    # The function that makes the sink call, when it is not ``function`` (the wrapper's own
    # sender, further in).
    sender_name: str | None = None
    # Where the sink call's keywords are built, when they are a dict the sender builds first
    # (`**request_params`): the place a limit would be added.
    body: Evidence | None = None
    # Holes of the function it calls that it fills from its ``**kwargs`` (`return super().handle(
    # **kwargs, chat_id=...)`): the caller's keyword of the same name fills each.
    passed_on: tuple[str, ...] = ()
    # Where the function hands its ``**kwargs`` on to the wrapper further in (`self.model.complete(
    # messages=m, **llm_kwargs)`): the request its callers' keywords end up in.
    handed_on: Evidence | None = None

    def fills(self, param: str) -> bool:
        """Whether a call's argument for ``param`` is read into the caller's request (a hole, or
        the body posted): a parameter the function makes other text of first (`page.inner_text`
        formatted into its prompt) is not, and stays the function's own to report."""
        if self.posted is not None:
            return self.posted[0] == param
        return any(param_hole(segment, self.params) == param for segment in self.request.segments)


def param_hole(segment: Segment, params: tuple[str, ...]) -> str | None:
    """The parameter a slot of a summary is, when it is exactly one, or one with its ends
    trimmed (``prompt.strip()``: the caller's text, as the caller wrote it but for blanks)."""
    tidied = _TIDIED.match(segment.text)
    name = tidied.group(1) if tidied is not None else segment.text
    return name if segment.slot is not None and name in params else None


_TIDIED = re.compile(r"([A-Za-z_]\w*)\.(?:strip|lstrip|rstrip)\(\)\Z")
