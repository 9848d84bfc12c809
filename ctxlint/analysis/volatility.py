"""Which slots change on every call, by the patterns a rule configures.

Patterns are globs over normalised names (lower snake case, so ``requestId`` is
``request_id``). A name pattern without a dot matches a plain variable only: ``timestamp`` is a
clock value, ``message.timestamp`` is a stored attribute of a record. A pattern with a dot
matches a dotted path (``request.id``, ``*.trace_id``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from fnmatch import translate
from functools import lru_cache

from ctxlint.analysis import names as naming
from ctxlint.analysis.names import normalise
from ctxlint.model import Request, Role, Segment, Slot, SourceKind

# The reason of a loop's counter, where the loop builds one prompt per pass (an agent's iteration
# number): not a pattern of the rule, a fact of data flow.
PER_PASS = "each pass of its loop"


def volatile_reason(slot: Slot, calls: list[str], names: list[str], filters: list[str],
                    loop_counters: bool = False) -> str | None:
    """What makes ``slot`` volatile under these patterns (``now()``, ``| random``, ``uuid``), or None;
    with ``loop_counters``, also the counter of the loop that builds the prompt (``PER_PASS``).

    Names inside a loop are per-item data (a stored timestamp of each message), so only calls
    and filters make a slot in a loop volatile.
    """
    for call in slot.calls:
        if _matches(call, calls, dotted_only=False):
            return f"{call}()"
    if loop_counters and not slot.variable_length and any(s.kind is SourceKind.PER_ITERATION for s in slot.sources):
        return PER_PASS
    for name in slot.filters:
        if _matches(name, filters, dotted_only=False):
            return f"| {name}"
    if not slot.variable_length:
        # A name given only data read from elsewhere (`random_preferences = stored["data"]`) is
        # what that data is: its own words are not evidence, the names it is read from are.
        for name in slot.names:
            if name not in slot.looked_up and _matches(name, names, dotted_only=True):
                return name
    return None


@dataclass(frozen=True)
class Volatility:
    """The union of the volatile patterns of every rule that defines some (CTX101, CTX102)."""

    pattern_sets: tuple[tuple[list[str], list[str], list[str]], ...]

    @classmethod
    def from_rules(cls, rules: Iterable) -> Volatility:
        return cls(tuple((r.options["calls"], r.options["names"], r.options["filters"]) for r in rules))

    def reason(self, slot: Slot) -> str | None:
        for calls, names, filters in self.pattern_sets:
            reason = volatile_reason(slot, calls, names, filters, loop_counters=True)
            if reason:
                return reason
        return None


def _matches(name: str, patterns: list[str], dotted_only: bool) -> bool:
    dotted, plain = _compiled(tuple(patterns))
    normal = normalise(name)
    if dotted.match(normal):
        return True
    if dotted_only:
        return "." not in normal and plain.match(normal) is not None
    return plain.match(normal) is not None or plain.match(normal.rsplit(".", 1)[-1]) is not None


@lru_cache(maxsize=256)
def _compiled(patterns: tuple[str, ...]) -> tuple[re.Pattern, re.Pattern]:
    """The patterns with a dot and those without, each as one regex (every slot is matched against them)."""
    lowered = [p.lower() for p in patterns]
    dotted = "|".join(translate(p) for p in lowered if "." in p) or "(?!)"
    plain = "|".join(translate(p) for p in lowered if "." not in p) or "(?!)"
    return re.compile(dotted), re.compile(plain)


def once_per_process(slot: Slot, reason: str) -> bool:
    """Whether the volatile ``reason`` is a call the slot only reads through a module-level
    constant: it runs once, when the module loads, not on every call."""
    return reason.endswith("()") and reason[:-2] in slot.once


def per_call_before(request: Request, index: int, per_call: list[str]) -> Segment | None:
    """A slot before ``index`` that differs from one call to the next anyway (the question, a
    loop over retrieved documents): the cacheable prefix already ends there. For a partial, the
    loop an including template prints before it stands for one."""
    found = next((s for s in request.segments[:index] if differs_per_call(s, per_call)), None)
    after = request.included_after
    if found is None and after is not None and request.segments:
        loop = f"{{% for %}} in {after.path}"
        found = Segment(request.segments[0].role, after, loop, Slot(loop, variable_length=True))
    return found


def replayed_after(request: Request, index: int, per_call: list[str], replayed: list[str]) -> Segment | None:
    """The conversation replayed after the slot at ``index``, when the first value after it that
    differs per call is earlier turns re-sent as messages of their own (a loop over the history
    that appends one message per turn). A conversation grows by a turn or two per call and is
    otherwise sent again unchanged: it is what a prompt cache saves most of in a multi-turn
    request, and a value before it that changes on every call leaves all of it uncached. So does
    a log a loop appends to on every pass and sends in the same pass (an agent's record of its
    steps), in whichever message it is written."""
    first = request.segments[index]
    for segment in request.segments[index + 1 :]:
        if segment.slot is None:
            continue
        if logged(segment.slot):
            return segment
        loop = naming.leading_name(segment.loop) if segment.loop else None
        if segment.message_index > first.message_index and loop and naming.matches(loop, replayed):
            return segment
        # The model's own words (a summary of the turns before the replayed ones) are part of the
        # conversation too; content that differs per call in any other role ends the prefix.
        if differs_per_call(segment, per_call) and segment.role is not Role.ASSISTANT:
            return None
    return None


def logged(slot: Slot) -> bool:
    """Whether the slot is part of an entry of a log its loop appends to and sends on every pass."""
    return any(s.kind is SourceKind.LOG_ENTRY for s in slot.sources)


def differs_per_call(segment: Segment, per_call: list[str]) -> bool:
    """A slot whose value is named like content that differs per call (the question, retrieved
    documents), that is a loop over such content, or whose size varies between calls (built by
    looping over what the call is given: `for task in tasks: info += ...`)."""
    slot = segment.slot
    if slot is None or naming.measured(slot):
        return False
    if slot.variable_length:
        return True
    candidates = [*slot.names, naming.leading_name(segment.loop) or ""] if segment.loop else slot.names
    return any(naming.matches(n, per_call) or naming.matches(naming.last(n), per_call) for n in candidates if n)


def static_until_per_call(request: Request, index: int, per_call: list[str],
                          volatile: Callable[[Slot], bool]) -> list[Segment]:
    """The static segments after ``index`` up to the next value that differs per call anyway
    (content named in ``per_call``, or another volatile value once some static text came
    between): only they lose caching because of the value at ``index``; what follows the next
    per-call value is lost to that one in any case. Volatile values written side by side
    (`{{time.Date}} ({{time.DayOfWeek}})`) count as one. A value that is itself built from content
    that differs per call as well as the volatile one (`formatted_prompt`, a template filled with the
    date and the user's topic) leaves nothing after it to lose: that content ends the prefix first."""
    if _carries_per_call(request.segments[index], per_call):
        return []
    found: list[Segment] = []
    for segment in request.segments[index + 1 :]:
        if segment.slot is None:
            found.append(segment)
        elif differs_per_call(segment, per_call) or (
                volatile(segment.slot) and any(s.has_words for s in found)):
            break
    return found


def _carries_per_call(segment: Segment, per_call: list[str]) -> bool:
    """Whether a volatile slot also reads, besides the value it prints first, content named like
    what differs per call (its own expression is not such a name: a clock read off the input is one value)."""
    slot = segment.slot
    if slot is None or naming.measured(slot):
        return False
    return any(naming.matches(n, per_call) or naming.matches(naming.last(n), per_call)
               for n in slot.names if n != slot.expression)


# A clock read to the day (`date.today()`, `strftime("%B %d, %Y")`, `current_date`,
# `toLocaleDateString()`, `getFullYear()`, `current_month`) changes at most once a day; one read to
# the time changes on every call.
# The names of clock types and of the methods that format and parse them (`strftime`) say nothing
# of how fine the value is read: they are taken out before the words that do.
# So is the time zone a clock is read in (`datetime.now(timezone.utc)`): `time` in it is no time of day.
_CLOCK_TYPES = re.compile(r"datetime|strftime|strptime|timezone|new Date\b|Date\.now", re.IGNORECASE)
# The words ignore case; the strftime codes do not (`%m` is the month, `%M` the minute).
_DAILY = re.compile(r"today|date|year|month|(?-i:%[YmdBbAaejy])\b", re.IGNORECASE)
_FINER_CODES = re.compile(r"%[HIMSfXcTRp]")
_FINER = re.compile(rf"time|hour|minute|second|(?-i:{_FINER_CODES.pattern})", re.IGNORECASE)
# A `strftime` call as the Python front-end records it, with its format (`strftime('%Y-%m-%d')`).
_FORMATTED = re.compile(r"strftime\((.*)\)", re.DOTALL)


# JavaScript formatting that keeps only the date of a timestamp: `toISOString().split("T")[0]`,
# `toISOString().slice(0, 10)`, `toDateString()`.
_DAY_OF_ISO = re.compile(r"toISOString\(\)\s*\.\s*(split\(\s*[\"'`]T[\"'`]\s*\)\s*\[\s*0\s*\]|"
                         r"(slice|substring|substr)\(\s*0\s*,\s*10\s*\))|toDateString\(\)")


# JavaScript reads of a date to the day or coarser, and to the time: what a value read from a clock
# through one of them changes with, whatever the clock's variable is called (`currentTime.getFullYear()`).
_DAY_READS = re.compile(r"\.(?:get(?:UTC)?(?:FullYear|Month|Date|Day)|toDateString|toLocaleDateString)$")
_TIME_READS = re.compile(r"\.(?:get(?:UTC)?(?:Hours|Minutes|Seconds|Milliseconds)|getTime|toISOString|toTimeString|"
                         r"toLocaleTimeString|toLocaleString|toUTCString|toString|valueOf)$")


def daily(slot: Slot) -> bool:
    """Whether a clock value is read only to the day: it changes once a day, not on every call."""
    # A clock written with a format finer than the day changes on every call, whatever its
    # variable is called (`current_date` filled with `now().strftime("%Y-%m-%d %H:%M:%S")`). One
    # read to the day says nothing of the rest of a value built with it (a prompt with a URL too).
    if any(_FINER_CODES.search(m.group(1)) for m in map(_FORMATTED.fullmatch, slot.calls) if m):
        return False
    # A value made of nothing but a clock and a read to the day (a prompt built elsewhere that calls
    # a clock among other things says nothing of how often the rest of it changes).
    if any(_DAY_READS.search(c) for c in slot.calls) and all(
            _DAY_READS.search(c) or _CLOCK_TYPES.fullmatch(c) for c in slot.calls):
        return True
    parts = [_DAY_OF_ISO.sub("date", _CLOCK_TYPES.sub("", text)) for text in (slot.expression, *slot.names)]
    return any(_DAILY.search(p) for p in parts) and not any(_FINER.search(p) for p in parts)
