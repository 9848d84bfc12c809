"""Layout: is each piece of text where truncation, summarisation and attention treat it right?"""

from __future__ import annotations

import difflib
import re
from collections import Counter

from ctxlint.analysis import constraints, names, regions
from ctxlint.checks import NUMBER, STRINGS, file_check, request_check
from ctxlint.context import CheckContext
from ctxlint.model import Evidence, EvidenceKind, Observation, ParsedFile, Region, Request, Role, Source

# What the front-end observed of the user's request dropped by a trim (taskdrops.py, partdrops.py,
# trimdrops.py, frontdrops.py), of instructions left in one piece of a prompt split to a size
# (splitprompts.py), and of a system prompt a branch rebuilds the request without (typescript/system_drops.py):
# what the cut does, and what it loses.
_OBSERVED_DROPS = {
    "task-front-dropped": ("drops the oldest items", "the user's request"),
    "task-part-dropped": ("drops the oldest items", "the user's request"),
    "task-behind-history": ("drops the oldest items", "the user's request"),
    "first-turn-trimmed": ("drops the oldest items", "the user's request"),
    "revisions-trimmed": ("drops the oldest items", "the user's earliest change requests"),
    "split-prompt": ("splits the prompt into pieces sent one by one", "the instructions, in one piece only"),
    "system-dropped": ("rebuilds the request on one branch", "the system prompt's instructions"),
    "system-cut": ("cuts the system prompt to a size", "the system prompt's instructions"),
    "system-windowed": ("keeps only the newest messages", "the system prompt's instructions"),
}
# Of a message the front-end saw go first, with the constraints in it the check finds: what
# goes, and where the constraint is.
_DROPPED_MESSAGES = {
    "appended-last-dropped": ("drops the newest messages", "a constraint in the message appended last"),
    "opening-summarised": ("starts a run whose oldest messages are summarised",
                           "a constraint in the message the run starts with"),
    "last-turn-cut": ("cuts the last message of the conversation to its first characters",
                      "a constraint past what the cut keeps of the message"),
}


@file_check(options={"collections": STRINGS, "constraints": STRINGS})
def pinned_in_truncatable_region(parsed: ParsedFile, ctx: CheckContext) -> None:
    """Report hard constraints that sit in MIDDLE (inside a loop over content whose size varies
    per call, history, or between such blocks), or in text the code cuts to a length
    (``RULES[:2000]``) beyond what the cut keeps; and the user's task placed first in a list of
    messages that the code has trimmed from the front (an observation of the front-end)."""
    for request in parsed.requests:
        ctx.request = request
        _request_constraints(request, ctx)
    ctx.request = None
    for observation in parsed.observations:
        if observation.kind in _DROPPED_MESSAGES and observation.source is not None:
            _dropped_message(observation, observation.source, ctx)
            continue
        if observation.kind == "reducer-summarised" and observation.source is not None:
            _summarised_text(observation, observation.source, ctx)
            continue
        drop = _OBSERVED_DROPS.get(observation.kind)
        if drop is not None and observation.source is not None:
            source, (does, loses) = observation.source, drop
            ctx.report(source.span, f"{observation.detail}.", kind=observation.kind,
                       evidence=(Evidence(EvidenceKind.SOURCE, f"`{source.detail}` {does}", source.span),
                                 *source.flow, Evidence(EvidenceKind.SINK, loses, observation.span)))


def _dropped_message(observation: Observation, source: Source, ctx: CheckContext) -> None:
    """A constraint in a message the front-end saw go first: appended last to a list that an
    overflow handler cuts from its end (lastdrops.py), or the opening message of a run of an agent
    that summarises its oldest messages (summarydrops.py). Reported at the drop, the constraint
    among its places; one the system prompt sent with it states as well is kept."""
    dropped = tuple(s for s in source.content if s.role is not Role.SYSTEM)
    found = constraints.in_segments(dropped, ctx.directives, ctx.options["constraints"])
    if source.kept is not None:  # a cut that keeps the message's first characters: what lies past them
        starts = [sum(len(s.text) for s in dropped[:i]) for i in range(len(dropped))]
        found = [c for c in found if starts[c.index] + c.end > source.kept]
    if found:  # each line of the system prompt by its rule words, read once for every constraint
        kept = [set(_rule_words(line)) for s in source.content if s.role is Role.SYSTEM
                for line in s.text.splitlines()]
        found = [c for c in found if not _restated(c.text, kept)]
    if not found:
        return  # each is stated again by the system prompt every attempt sends
    constraint = found[0]
    does, where = _DROPPED_MESSAGES[observation.kind]
    more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
    ctx.report(source.span, f"The constraint \"{_excerpt(constraint.text)}\"{more} {observation.detail}.",
               kind=observation.kind,
               evidence=(Evidence(EvidenceKind.SOURCE, f"`{source.detail}` {does}", source.span),
                         *source.flow, Evidence(EvidenceKind.SINK, where, constraint.span)))


def _summarised_text(observation: Observation, source: Source, ctx: CheckContext) -> None:
    """The constraints in text handed to a project function that summarises it once it is over a
    budget (summarisedparts.py): each piece of text that states one is reported where it is
    written, since each is lost on its own."""
    found = constraints.in_segments(source.content, ctx.directives, ctx.options["constraints"])
    for index in sorted({c.index for c in found}):
        stated = [c for c in found if c.index == index]
        more = f" (and {len(stated) - 1} more)" if len(stated) > 1 else ""
        ctx.report(stated[0].span, f"The constraint \"{_excerpt(stated[0].text)}\"{more} {observation.detail}.",
                   kind=observation.kind,
                   evidence=(Evidence(EvidenceKind.SOURCE, f"`{source.detail}` may summarise it", source.span),
                             *source.flow, Evidence(EvidenceKind.SINK, "a constraint in the text", stated[0].span)))


def _restated(constraint: str, lines: list[set[str]]) -> bool:
    """Whether one of ``lines`` (each by its rule words) states the rule of ``constraint`` too:
    with the same negation, it holds every word of the rule that is not a function word ("DO NOT
    summarize the information." in "... is preserved verbatim (don't rewrite it, don't summarize
    it)" about that information)."""
    rule = set(_rule_words(constraint))
    words = rule - _FUNCTION_WORDS - {"NOT", "MUST"}
    negated = "NOT" in rule
    return bool(words) and any(("NOT" in line) == negated and words <= line for line in lines)


def _request_constraints(request: Request, ctx: CheckContext) -> None:
    words = ctx.options["constraints"]
    for segment in request.slots():
        for constraint, cut in constraints.cut_by(segment, ctx.directives, words):
            _report(ctx, constraint,
                    f" is in text that `{cut}` (line {segment.span.line}) cuts to a fixed length, so it is "
                    "dropped, wholly or in part, whenever the cut applies. Keep constraints out of truncated "
                    "text: send them whole, before the text that may be cut.",
                    kind="cut-text", source=Evidence(EvidenceKind.SOURCE, f"`{cut}` cuts the text", segment.span),
                    sink="a constraint beyond what the cut keeps")
    _before_history(request, ctx, words)
    layout = ctx.analysis.layout(ctx.options["collections"])
    if not layout.variable:
        return
    found = constraints.find(ctx.analysis.sentences(), words)
    # A word-for-word restatement of a HEAD constraint loses nothing when it is cut: the
    # original stays (an agent's later tool results put the current turn's restatement there).
    pinned = {constraints.normalised(c.text) for c in found if layout.regions[c.index] is Region.HEAD}
    first_in_loop: dict[str | None, regions.Variable] = {}  # the first block of each loop, looked up once
    for variable in layout.variable:
        first_in_loop.setdefault(request.segments[variable.index].loop, variable)
    held = {request.segments[v.index].message_index for v in layout.variable}  # messages with a variable block
    between = (f"between variable-length blocks ({layout.describe_variable(request, layout.variable[0].index)} "
               f"and {layout.describe_variable(request, layout.variable[-1].index)})")
    for constraint in found:
        if layout.regions[constraint.index] is not Region.MIDDLE:
            continue
        if pinned and constraints.normalised(constraint.text) in pinned:
            continue
        segment = request.segments[constraint.index]
        if segment.loop is not None:
            block = first_in_loop.get(segment.loop)
            where = f"inside the loop over `{segment.loop}`"
        elif segment.message_index in held:
            # Static text of a message that holds a variable block: trimming shortens the block,
            # the text around it stays (a cut of the whole text is `cut-text`'s evidence).
            continue
        else:
            block, where = layout.variable[0], between
        if block is None:  # a loop inside the region, over a list the code supplies
            block = layout.variable[0]
        explicit = ctx.directives.region_at(constraint.span.line) is Region.MIDDLE
        _report(ctx, constraint,
                f" sits {where}, in the MIDDLE region that budgets truncate or summarise first, so it can "
                "silently disappear. Move it to the system prompt before any variable content, and restate it "
                "word for word after the last one if needed.",
                kind="declared" if explicit or constraint.pinned else f"in-{block.kind}", source=block.evidence,
                sink="a constraint in the MIDDLE region")


def _before_history(request: Request, ctx: CheckContext, words: list[str]) -> None:
    """The first user message carries the task and its rules, and a run of turns of varying length
    (``*history``, messages appended in a loop) follows it in later messages: trimming the
    conversation to its newest turns drops that message first, and its rules with it."""
    segments = request.segments
    first = next((s.message_index for s in segments if s.role is Role.USER), None)
    if first is None:
        return
    # Turns: a message repeated in a loop (every part of it inside the loop), or a slot that stands for
    # messages (`*history`); a text built in a loop inside one message varies in length, not in turns.
    grows = next((s for s in segments if s.message_index > first and s.role is not Role.SYSTEM and (
        (s.loop is not None and all(t.loop == s.loop for t in segments if t.message_index == s.message_index))
        or (s.slot is not None and s.slot.turns and not s.slot.opaque))), None)
    if grows is None:
        return
    found = [c for c in constraints.find(ctx.analysis.sentences(), words)
             if segments[c.index].message_index == first and segments[c.index].role is Role.USER
             and segments[c.index].loop is None]
    if found:
        constraint = found[0]
        more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
        what = f"the loop over `{grows.loop}`" if grows.loop else f"`{grows.text}`"
        _report(ctx, constraint,
                f"{more} is in the first user message, and {what} (line {grows.span.line}) adds turns after it: "
                "trimming the conversation to its newest turns drops this message first, and its rules with it. "
                "Move the rules to the system prompt, or restate them in the last message.",
                kind="before-history",
                source=Evidence(EvidenceKind.SOURCE, f"{what} adds turns of varying number", grows.span),
                sink="a constraint in the oldest user message")


def _report(ctx: CheckContext, constraint: constraints.Constraint, says: str, *, kind: str, source: Evidence,
            sink: str) -> None:
    """Report a constraint at risk: ``says`` follows its excerpt (`The constraint "…"`), and the
    evidence runs from ``source`` (the cut, the variable block, the growing history) to the
    constraint, which ``sink`` describes."""
    ctx.report(constraint.span, f"The constraint \"{_excerpt(constraint.text)}\"{says}", kind=kind,
               evidence=(source, Evidence(EvidenceKind.SINK, sink, constraint.span)))


# A word in more constraints than this ("never", "the") is not looked up constraint by constraint:
# it counts as shared with all of them, which keeps the bound an upper bound.
_COMMON_WORD = 64
# Work CTX302 may spend on one request, in words compared: far more than any prompt written by
# hand needs (a hundred constraints against a hundred restatements is about 10^5).
DRIFT_WORK = 3_000_000


class _Closest:
    """The HEAD constraint closest to a TAIL sentence, by the word-level ratio of difflib.

    Comparing every sentence with every constraint is quadratic (400 of each, 29 KB, took 6 s). A
    ratio is 2M/(a+b) for M words matched of a+b, and M is at most the words the two have in
    common, so an index of the constraints' words bounds each ratio from above: only the
    constraints whose bound reaches the threshold (and the best ratio found so far) are
    compared, best bound first, and each distinct wording once. ``budget`` counts the words
    compared; past DRIFT_WORK the search gives up (``to`` returns None with a negative budget).
    """

    def __init__(self, head: list[constraints.Constraint], threshold: float) -> None:
        self.threshold = threshold
        self.wordings: dict[str, int] = {}  # each distinct wording in normal form: its first constraint
        self.originals: list[tuple[constraints.Constraint, list[str]]] = []
        self.index: dict[str, list[tuple[int, int]]] = {}  # word -> (constraint, times it has the word)
        for constraint in head:
            wording = _modal(constraint.text)
            if wording in self.wordings:
                continue
            self.wordings[wording] = len(self.originals)
            words = wording.split()
            for word, times in Counter(words).items():
                self.index.setdefault(word, []).append((len(self.originals), times))
            self.originals.append((constraint, words))
        self.shortest = min((len(words) for _, words in self.originals), default=0)
        self.judged: dict[str, tuple[constraints.Constraint, float] | None] = {}
        self.budget = DRIFT_WORK

    def to(self, text: str) -> tuple[constraints.Constraint, float] | None:
        """The closest constraint and its ratio, if at the threshold or over; None otherwise."""
        if text in self.judged:
            return self.judged[text]
        if self.budget < 0:
            return None
        words = text.split()
        common: Counter[int] = Counter()
        everywhere = 0  # words in common through words most constraints have: counted for all of them
        for word, times in Counter(words).items():
            postings = self.index.get(word, ())
            if len(postings) > _COMMON_WORD:
                everywhere += times
                continue
            self.budget -= len(postings)
            for number, count in postings:
                common[number] += min(times, count)
        if everywhere and 2 * everywhere / (len(words) + self.shortest) >= self.threshold:
            # The common words alone could reach the threshold: every constraint is a candidate.
            self.budget -= len(self.originals)
            common.update(dict.fromkeys(range(len(self.originals)), 0))
        bounds = sorted(((2 * (shared + everywhere) / (len(words) + len(self.originals[number][1])), number)
                         for number, shared in common.items()), key=lambda item: (-item[0], item[1]))
        best, ratio = -1, 0.0
        for bound, number in bounds:
            if bound < max(self.threshold, ratio):
                break
            original = self.originals[number][1]
            self.budget -= len(original) + len(words)
            score = difflib.SequenceMatcher(None, original, words).ratio()
            if score > ratio or (score == ratio and number < best):  # ties: the first, as written
                best, ratio = number, score
        found = (self.originals[best][0], ratio) if best >= 0 and ratio >= self.threshold else None
        self.judged[text] = found
        return found


# Wordings of the same modality: a restatement that swaps one for another says the same thing.
_MODALITIES = (
    (re.compile(r"\b(?:must not|mustn't|cannot|can't|can not|do not|don't|does not|doesn't|should not|"
                r"shouldn't|may not|never|are not allowed to|is not allowed to|not allowed to|"
                r"are forbidden to|is forbidden to)\b"), " NOT "),
    (re.compile(r"\b(?:must|have to|has to|need to|needs to|should|are required to|is required to|"
                r"required to|always)\b"), " MUST "),
)


def _modal(text: str) -> str:
    text = constraints.normalised(text)
    for pattern, word in _MODALITIES:
        text = pattern.sub(word, text)
    return " ".join(text.split())


_NUMBER_WORDS = {word: str(n) for n, word in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen twenty".split())}
_NUMBER_WORDS.update({"thirty": "30", "forty": "40", "fifty": "50", "hundred": "100", "thousand": "1000",
                      "once": "1", "twice": "2", "single": "1", "both": "2"})
# Words that carry no rule of their own: replacing one by another ("the" for "a") says the same thing.
_FUNCTION_WORDS = frozenset(
    "a an the this that these those your my our their its it you we they i to of in on for with by as at from "
    "and or is are be been please just also again reminder remember note".split())
_TOKEN = re.compile(r"[\w']+|[^\w\s]")
# Verbs of one sense in a rule about what the model may show: "do not output your reasoning" and
# "never reveal your reasoning" forbid the same thing. A list of words (the last resort): no
# mechanism tells two verbs of one sense from two rules ("do not delete" / "do not read").
_DISCLOSE = frozenset("output reveal show display print emit disclose expose share include".split())
# Quantifiers that say the same of a rule's object: "for any application" is "for every application".
_QUANTIFIERS = frozenset({"any", "every", "each", "all"})
# Where a clause starts after another: ", ", "; ", ": ", " - ".
_CLAUSE = re.compile(r"[,;:]\s|\s[-–—]\s")


def _drift(original: str, restated: str) -> str | None:
    """What makes a restatement a different rule (the evidence kind): ``number`` (a number added,
    dropped or changed), ``negation`` (a negation added or dropped), ``scope`` (a word replaced by
    another); None when the two are wordings of one rule."""
    a, b = _rule_words(original), _rule_words(restated)
    if sorted(w for w in a if w.isdigit()) != sorted(w for w in b if w.isdigit()):
        return "number"
    if a.count("NOT") != b.count("NOT"):
        return "negation"
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "replace" and _replaced(a[i1:i2], b[:j1] + b[j2:]) | _replaced(b[j1:j2], a[:i1] + a[i2:]) \
                and not _closing_clauses_swapped(original, restated, (i1, i2, j1, j2), a, b):
            return "scope"
    return None


def _replaced(words: list[str], elsewhere: list[str]) -> set[str]:
    """The words of a replaced run that carry a rule and do not reappear, in another form, in the
    rest of the other wording: "internal reasoning" told again as "plan internally ... your
    reasoning" moved a word, it did not change the rule's scope."""
    stems = {_stem(word) for word in elsewhere}
    return {word for word in words if word not in _FUNCTION_WORDS and _stem(word) not in stems}


def _stem(word: str) -> str:
    return word[:-2] if len(word) > 5 and word.endswith("ly") else word


def _closing_clauses_swapped(original: str, restated: str, spans: tuple[int, int, int, int], a: list[str],
                             b: list[str]) -> bool:
    """Whether a replaced run is a closing clause of each wording with no word in common, two
    words or more on each side (", distributing the logic" / ", even for small ones"): one
    elaboration left out and another added to the same rule, not a word of it replaced."""
    i1, i2, j1, j2 = spans
    if i2 != len(a) or j2 != len(b) or i2 - i1 < 2 or j2 - j1 < 2:
        return False
    a_words, b_words = a[i1:], b[j1:]
    if (set(a_words) & set(b_words)) - _FUNCTION_WORDS:
        return False
    return i1 in _clause_starts(original) and j1 in _clause_starts(restated)


def _clause_starts(text: str) -> set[int]:
    """The positions in ``_rule_words(text)`` where a clause after the first starts."""
    return {len(_rule_words(text[:m.start()])) for m in _CLAUSE.finditer(text)}


def _rule_words(text: str) -> list[str]:
    """The words of a rule in a form where wordings of it agree: modalities as NOT/MUST, number
    words as digits, plurals as singulars, punctuation dropped."""
    words = []
    for word in _TOKEN.findall(_modal(text)):
        if word in ("NOT", "MUST"):
            words.append(word)
            continue
        word = word.strip("'").lower()
        if not word or not (word[0].isalnum() or word[0] == "_"):
            continue
        word = _NUMBER_WORDS.get(word, word)
        word = "every" if word in _QUANTIFIERS else word
        word = "reveal" if word in _DISCLOSE else word
        if len(word) > 3 and not word.isdigit():
            if word.endswith("ies"):
                word = word[:-3] + "y"
            elif word.endswith("s") and not word.endswith("ss"):
                word = word[:-1]
        words.append(word)
    return words


@request_check(options={"similarity": NUMBER, "collections": STRINGS, "constraints": STRINGS})
def restated_constraint_drift(request: Request, ctx: CheckContext) -> None:
    """Report a TAIL restatement that is close to, but not the same as, a HEAD constraint.

    HEAD candidates are constraints and sentences that state a number (a word limit is a rule
    without any keyword). Two wordings of one rule are not drift: another wording of a modality
    ("must not" for "cannot"), case, a plural, an article, a word added or left out ("Return only
    valid JSON arrays" / "Return ONLY a valid JSON array"), a word moved, a verb of showing for
    another ("never reveal" for "do not output"). A number that changes, a negation
    that appears or goes, or a word replaced by another (the rule's scope) is drift.
    """
    layout = ctx.analysis.layout(ctx.options["collections"])
    if not layout.variable:
        return
    found = constraints.find_with_numbers(ctx.analysis.sentences(), ctx.options["constraints"])
    head = [c for c in found if layout.regions[c.index] is Region.HEAD]
    # Any TAIL sentence can be a restatement: one that lost its "never" no longer looks like a rule.
    tail = [c for c in ctx.analysis.sentences()
            if layout.regions[c.index] is Region.TAIL and not constraints.is_heading(c.text)]
    if not head or not tail:
        return
    closest = _Closest(head, ctx.options["similarity"])
    for restated in tail:
        text = _modal(restated.text)
        if text in closest.wordings:
            continue
        match = closest.to(text)
        if match is None:
            if closest.budget < 0:
                ctx.notice(f"stopped comparing restatements with the constraints before them at line "
                           f"{restated.span.line} (after {DRIFT_WORK:,} word comparisons); later drift is not reported")
                return
            continue
        best, ratio = match
        drift = _drift(best.text, restated.text)
        if drift is None:
            continue
        difference = _difference(best.text, restated.text)
        ctx.report(
            restated.span,
            f"This restates the constraint on line {best.span.line} but differs: {difference}. "
            "The model sees two rules and may follow either; restate it word for word, or drop one.",
            kind=drift,
            evidence=(Evidence(EvidenceKind.SOURCE, "the original, in HEAD", best.span),
                      Evidence(EvidenceKind.SINK, f"the restatement, in TAIL ({ratio:.0%} alike)", restated.span)),
        )


@request_check(options={"collections": STRINGS, "questions": STRINGS, "graded": STRINGS})
def question_not_last(request: Request, ctx: CheckContext) -> None:
    """Report the current user input placed before variable-length content.

    In an evaluation or judge prompt the question is data being graded, not the current turn:
    a request that also carries a graded answer (``answer``, ``prediction``) is left alone.
    """
    collections = ctx.options["collections"]
    layout = ctx.analysis.layout(collections)
    if not layout.variable:
        return
    slots = [(i, s) for i, s in request.indexed_slots() if s.loop is None]
    if any(names.matches(n, ctx.options["graded"]) or names.matches(names.last(n), ctx.options["graded"])
           for _, s in slots for n in s.slot.names):  # type: ignore[union-attr]
        return
    questions = [i for i, s in slots if not regions.is_variable(s, collections, ctx.directives)
                 and any(names.matches(n, ctx.options["questions"]) for n in s.slot.names)]  # type: ignore[union-attr]
    if not questions:
        return
    question = request.segments[questions[-1]]
    # Only material in the question's own message counts: in a conversation, later turns
    # (tool calls and their results) naturally follow the question that started them.
    following = next((v for v in layout.variable if v.index > questions[-1]
                      and request.segments[v.index].message_index == question.message_index), None)
    if following is None:
        return
    ctx.report(
        question.span,
        f"The current user input `{question.text}` comes before "
        f"{layout.describe_variable(request, following.index)}. Models answer best with the question last, "
        "after the material, and that position is the one a budget never cuts. Move it after the last "
        "variable-length block.",
        kind=f"before-{following.kind}",
        evidence=(Evidence(EvidenceKind.NAME, f"`{question.text}` is named as the current user input",
                           question.span, strong=False), following.evidence),
    )


def _excerpt(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _difference(original: str, restated: str) -> str:
    """`HEAD says "five", TAIL says "three"` from a word-level diff."""
    a, b = original.split(), restated.split()
    parts = []
    matcher = difflib.SequenceMatcher(None, [w.lower() for w in a], [w.lower() for w in b])
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "replace":
            parts.append(f"\"{' '.join(a[i1:i2])}\" became \"{' '.join(b[j1:j2])}\"")
        elif tag == "delete":
            parts.append(f"\"{' '.join(a[i1:i2])}\" is missing")
        elif tag == "insert":
            parts.append(f"\"{' '.join(b[j1:j2])}\" was added")
    return "; ".join(parts[:3]) or "the wording differs"
