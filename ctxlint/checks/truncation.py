"""Silent truncation: text cut to a length with nothing in its place to tell the model so.

A front-end records a cut as a fact about the slot it reaches (``Source`` of kind TRUNCATION),
or, where no request of the file is seen to include the cut text, as an observation of the file
(a cut in code that builds prompts, a loop that stops adding items once a budget is spent).
"""

from __future__ import annotations

from ctxlint.checks import STRINGS, file_check
from ctxlint.context import CheckContext
from ctxlint.markers import LEAST_SPOKEN, cut_marker, cut_marker_before, cut_noted, names_a_speaker
from ctxlint.model import Cut, Evidence, EvidenceKind, ParsedFile, Request, Segment, Source, SourceKind, Span

# The evidence kind of a cut that reaches a request, by how it was found.
_KINDS = {"slice": "cut", "output-slice": "raw-output-cut", "word-cut": "word-cut", "token-cut": "token-cut",
          "helper-cut": "helper-cut", "helper-budget-cut": "helper-budget-cut", "row-cut": "row-cut",
          "last-item-cut": "last-item-cut", "listing-cut": "listing-cut"}
_HELPERS = ("helper-cut", "helper-budget-cut")
# ... and of one the front-end observed with no request of the file seen to include it.
_OBSERVED = {"silent-cut": "unsent-cut", "token-sized-cut": "unsent-token-cut", "output-cut": "output-cut",
             "raw-output-cut": "raw-output-cut", "far-cut": "far-cut", "logged-cut": "logged-cut",
             "logged-part": "logged-part",
             "excerpt-cut": "excerpt-cut",
             "budget-loop": "budget-loop", "fit-loop": "fit-loop", "history-size-loop": "history-size-loop",
             "drop-loop": "drop-loop",
             "ranked-loop": "ranked-items", "oldest-turns-count": "oldest-turns-count",
             "first-chunk": "first-chunk", "ranked-first-chunk": "ranked-first-chunk",
             "start-task-first-chunk": "start-task-first-chunk", "item-first-chunk": "item-first-chunk",
             "leading-chunks": "leading-chunks", "template-tail-cut": "template-tail-cut",
             "middle-removed": "middle-removed",
             "first-message": "first-message", "dropped-system": "dropped-system",
             "prompt-cut": "cut-reaches-prompt", "tool-result-cut": "tool-result-cut", "window-cut": "window-cut",
             "fed-back-cut": "fed-back-cut",
             "line-cut": "line-cut", "misplaced-cut": "misplaced-cut", "middle-drop": "middle-dropped",
             "settings-template-cut": "settings-template-cut", "stripped-blocks": "stripped-blocks",
             "description-cut": "description-cut", "message-cut": "message-cut", "listing-cut": "listing-cut",
             "unflagged-cut": "unflagged-cut", "gated-drop": "gated-drop", "last-resort-cut": "last-resort-cut",
             "unmarked-branch": "unmarked-branch", "command-cut": "command-cut", "page-items-cut": "page-items-cut",
             "trimmed-turns": "trimmed-turns", "whole-named-cut": "whole-named-cut"}
# A document cut to fewer characters than this is shown as a preview, not given to be read.
_WHOLE_READ = 1000
# How many lines from a cut a note about it may sit in the same request: a template that shows the
# head and tail of a long output puts a count of the elided characters between them.
_NEAR = 6


@file_check(options={"markers": STRINGS})
def silent_truncation(parsed: ParsedFile, ctx: CheckContext) -> None:
    """Report text cut to a length with no marker beside it: in a request, and where the
    front-end saw a cut that no request of the file includes."""
    markers = tuple(m.lower() for m in ctx.options["markers"])
    seen: set[Span] = set()  # cuts some request includes, marked or not
    for request in parsed.requests:
        ctx.request = request
        _request_cuts(request, ctx, markers, seen)
    ctx.request = None
    for observation in parsed.observations:
        source = observation.source
        if source is None or observation.kind not in _OBSERVED or source.span in seen:
            continue
        kind = _OBSERVED[observation.kind]
        cut = source.cut or Cut()
        if kind == "cut-reaches-prompt" and (cut.turn or cut.spoken):
            kind = "turn-cut"
        elif kind == "cut-reaches-prompt" and _cuts_a_document(source):
            kind = "document-cut"
        if kind == "unsent-cut" and not source.strong:
            kind = "unsent-text-cut"
        if kind == "cut-reaches-prompt" and cut.logged:
            kind = "logged-cut"
        elif kind == "cut-reaches-prompt" and cut.optional:
            kind = "opt-in-cut"
        elif kind == "cut-reaches-prompt" and cut.told:
            kind = "told-limit-cut"
        elif kind == "cut-reaches-prompt" and cut.reply:
            kind = "reply-cut"
        message = _fed_back_message(source) if kind == "fed-back-cut" else _misplaced_message(source) \
            if kind == "misplaced-cut" else _logged_message(source) if kind == "logged-cut" else _message(source)
        ctx.report(source.span, message, kind=kind, evidence=(
            Evidence(EvidenceKind.SOURCE, f"`{source.detail}` cuts the text", source.span, source.strong),
            *source.flow, Evidence(EvidenceKind.SINK, observation.detail, observation.span, strong=False)))


def _request_cuts(request: Request, ctx: CheckContext, markers: tuple[str, ...], seen: set[Span]) -> None:
    segments = request.segments
    for index, segment in enumerate(segments):
        if segment.slot is None:
            continue
        cuts = [s for s in segment.slot.sources if s.kind is SourceKind.TRUNCATION]
        seen.update(s.span for s in cuts)
        seen.update(step.span for s in cuts for step in s.flow if step.span is not None)
        following = segments[index + 1] if index + 1 < len(segments) else None
        preceding = segments[index - 1] if index else None
        # A helper's own cut is reported where the helper is called, as a step of that finding.
        inside = {step.span for s in cuts if s.cut and s.cut.how in _HELPERS for step in s.flow}
        for source in cuts:
            cut = source.cut or Cut()
            beside = (following if cut.keeps == "start" else preceding)
            if source.span in inside or (beside is not None and beside.slot is None and (
                    cut_marker(beside.text, markers) if cut.keeps == "start" else cut_marker_before(beside.text,
                                                                                                  markers))):
                continue
            if _noted_near(segments, source.span) or (cut.how == "row-cut" and _says_a_part(preceding, following)):
                continue
            kind = _KINDS.get(cut.how, "cut")
            if kind in ("cut", "raw-output-cut") and cut.keeps == "end":
                kind = "tail-cut"
            elif kind == "cut" and (cut.turn or cut.spoken or _spoken(preceding, cut, source)):
                kind = "turn-cut"
            elif kind == "cut" and _cuts_a_document(source):
                kind = "document-cut"
            elif kind == "cut" and cut.logged:
                kind = "logged-cut"
            ctx.report(
                source.span, _logged_message(source) if kind == "logged-cut" else _message(source),
                kind=kind if source.strong else "cut-pattern",
                evidence=(Evidence(EvidenceKind.SOURCE, f"`{source.detail}` cuts the text", source.span,
                                   source.strong), *source.flow,
                          Evidence(EvidenceKind.SINK, f"sent in the {segment.role.value} message with no marker "
                                   "beside it", segment.span)),
            )


# What the words beside a table's first rows say when they call them a part of it.
_PART_WORDS = ("first", "sample", "head", "top ", "preview", "example", "excerpt", "some of", "partial", "truncat",
               "up to", "at most", "subset", "more rows", "omitted")


def _says_a_part(preceding: Segment | None, following: Segment | None) -> bool:
    """Whether the static text just before or after a table's first rows calls them a part of it
    ("The first rows of the result:", "(showing 25 rows of 1,204)")."""
    near = (preceding.text[-200:] if preceding is not None and preceding.slot is None else "") + " " + (
        following.text[:200] if following is not None and following.slot is None else "")
    return any(word in near.lower() for word in _PART_WORDS)


def _spoken(preceding: Segment | None, cut: Cut, source: Source) -> bool:
    """A cut written as a turn of a transcript: the static text just before it names a speaker
    (``User: {user_input[:12000]}``), it keeps the start, and keeps enough to be read as what was
    said, as a document is (a turn cut to 300 characters for a title prompt is a hint of it)."""
    return preceding is not None and preceding.slot is None and cut.keeps == "start" \
        and (source.kept is None or source.kept >= LEAST_SPOKEN) and names_a_speaker(preceding.text)


def _cuts_a_document(source: Source) -> bool:
    """A cut that keeps the start of a value named as a document or as the context gathered for a
    question (``context[:6000]``), to a length a model is given to read, not a preview."""
    cut = source.cut or Cut()
    return cut.document and cut.keeps == "start" and cut.unit == "characters" and (
        source.kept is None or source.kept >= _WHOLE_READ)


def _noted_near(segments: tuple[Segment, ...], span: Span) -> bool:
    """Whether static text of the request within a few lines of the cut, in the same file, says
    that text was cut (`<elided_chars>{{ n }} characters elided</elided_chars>` after a head), and
    is not the marker written right beside another cut (`other[:n] + "… [truncated]"`)."""
    return any(s.slot is None and s.span.path == span.path and s.span.line <= span.end_line + _NEAR
               and s.span.end_line >= span.line - _NEAR and cut_noted(s.text)
               and not _marks_another(segments, i, span) for i, s in enumerate(segments))


def _marks_another(segments: tuple[Segment, ...], index: int, span: Span) -> bool:
    """Whether the static text at ``index`` is the marker of a cut other than the one at ``span``."""
    text = segments[index].text
    for neighbour, keeps, marked in ((index - 1, "start", cut_marker), (index + 1, "end", cut_marker_before)):
        slot = segments[neighbour].slot if 0 <= neighbour < len(segments) else None
        if slot is not None and marked(text) and any(
                c.kind is SourceKind.TRUNCATION and c.span != span and (c.cut or Cut()).keeps == keeps
                for c in slot.sources):
            return True
    return False


def _fed_back_message(source: Source) -> str:
    amount = f"its first {source.kept:,} characters" if source.kept is not None else "a fixed length"
    return (f"`{source.detail}` cuts the model's reply to {amount}, mid-word, and stores it where the next call "
            "reads it back into the same prompt with nothing to say it was cut, so the model builds on a summary it "
            "takes to be whole. Cut at a sentence boundary and mark the cut, or ask the model to shorten it.")


def _logged_message(source: Source) -> str:
    cut = source.cut or Cut()
    if cut.how == "slice":
        amount = f"its {'first' if cut.keeps == 'start' else 'last'} {source.kept:,} characters" \
            if source.kept is not None else "a fixed length"
        return (f"`{source.detail}` cuts the text to {amount} when it is longer and leaves nothing in its place; "
                "the branch that cuts says so only to its log, so the model cannot tell that content is missing and "
                "answers as if it had it all. Put the log's note in the text as well (\"[truncated: first 1,000 of "
                "4,210 characters]\"), or summarise instead.")
    unit = cut.unit
    return (f"`{source.detail}` cuts {unit} off the text until it fits a budget and leaves nothing in their "
            "place; the code tests that budget and says it cut only to its log, so the model cannot tell that "
            "content is missing and answers as if it had it all. Put the log's note in the text as well "
            "(\"[truncated: budget reached]\"), or summarise instead.")


def _misplaced_message(source: Source) -> str:
    return (f"`{source.detail}` keeps the end of the text that comes before the passage but adds it after the "
            "passage, with nothing between them, so the model reads the earlier text, starting mid-sentence, as if "
            "it followed. Put the kept end before the passage, as the whole text is, and mark where it was cut.")


# What a cut that drops whole parts does, said after the code that cuts (the same words for every
# such cut of a kind: nothing in them depends on the site).
_WHOLE_PART_CUTS = {
    "first-chunk": "keeps only the first piece of a text split to a size and drops the others with nothing in "
                   "their place, so the model cannot tell that the text goes on and answers as if it had it all. "
                   "Send every piece (one call each, then combine), or say that the text was cut.",
    "ranked-first-chunk": "keeps only the first piece of a text that adds up ranked items in their order, so it keeps "
                          "the best that fit and drops the rest, the last one cut mid-text, with nothing in their "
                          "place. Say how many items were left out (\"[4 more passages omitted]\"), and cut "
                          "between items rather than inside one.",
    "item-first-chunk": "keeps only the first piece of each retrieved item split to a size and drops the rest of "
                        "that item with nothing in its place; an item longer than the piece is rare, but say that it "
                        "was cut (\"[passage truncated]\") if it can be.",
    "start-task-first-chunk": "keeps only the first piece of a text split to a size and drops the others with "
                              "nothing in their place; the task asks for what the start of a text holds, so the "
                              "loss is small, but say that the text was cut if the answer may depend on the rest.",
    "leading-chunks": "adds only the first pieces of a text to the value named as the whole of it and drops the "
                      "rest with nothing in their place, so the model reads the start of the text as if it were "
                      "all of it. Say how many pieces were left out (\"[first 5 of 31 chunks]\"), or summarise "
                      "every piece.",
    "template-tail-cut": "keeps only the last tokens of the conversation its chat template rendered and drops its "
                         "start, the system prompt and the earliest turns first, cut mid-message with nothing in "
                         "their place, so the model answers without its instructions. Drop whole turns after the "
                         "system message instead, and say how many were left out.",
    "dropped-system": "empties the messages that held the system prompt when the model is taken to have no system "
                      "role, and the rest is sent without it, with nothing in its place: the model never reads its "
                      "instructions. Put the system text at the start of the first user message instead.",
    "stripped-blocks": "deletes the code blocks of the conversation's messages and leaves nothing in their place "
                       "(a note only where nothing else is left), so the model reads turns that speak of code it "
                       "no longer sees as if they were whole. Put a note where each block was (\"[code block "
                       "omitted]\"), or summarise it.",
    "logged-part": "puts only a part of the collection into the prompt; the code counts what it left out and says "
                   "so only to its log, with nothing in the text, so the model takes the part for the whole. Say in "
                   "the text how many were left out (\"the first 100 of 1,204 documents\"), or cover them all.",
    "first-message": "keeps only the first message of the conversation and drops every later one (the history and "
                     "the latest request) with nothing in their place, so the model answers without them. Send all "
                     "the messages, or join their contents into the prompt.",
}


# Cuts whose message names how much the cut keeps: `{kept}` (a number), `{entries}` (a number, or
# "few" when the code does not say), `{size}` (characters, or "its limit").
_COUNTED_CUTS = {
    "listing-cut": "keeps the first {entries} entries of a folder's listing, an order that ranks nothing, and leaves "
                   "nothing in place of the rest, so the model takes them for the whole folder and says a file the "
                   "cut dropped is not there. Say how many entries were left out (\"… and 212 more\"), or list "
                   "them all.",
    "page-items-cut": "keeps the first {entries} elements the script collected from the page, in the page's order, "
                      "which ranks nothing, and leaves nothing in place of the rest, so the model takes them for "
                      "everything on the page and says that an element the cut dropped is not there. Say how many "
                      "were left out (\"… and 212 more elements\"), or hand back the count with them.",
    "gated-drop": "lets the text into the prompt only while it is shorter than {size}; a longer one is left out "
                  "whole with nothing in its place, so the model reads the prompt as if there were none and answers "
                  "without the very text that was too long to miss. Cut it and say so (\"[log truncated: first "
                  "20,000 of 250,000 characters]\"), or say that it was left out.",
    "unflagged-cut": "stops once its list holds a number of items and returns it with no flag of the cut, where the "
                     "module's other results say when they were cut, so the model takes the list for complete and "
                     "says that what the cut dropped is not there. Return the same flag (\"truncated\": true) and "
                     "how many were left out.",
    "description-cut": "cuts the description of a tool or of a field of its schema to its first {kept} characters "
                       "and leaves nothing in its place, so the model reads a description that stops mid-sentence "
                       "as if it were whole, and chooses the tool or fills the field from it. Mark the cut (\"…\"), "
                       "or shorten the description where it is written.",
}
# Cuts that keep both ends of a sequence and drop its middle; `keeps` is written "head+tail".
_MIDDLE_CUTS = {
    "middle-drop": "keeps {ends} of the conversation and drops every turn "
                   "between them with nothing in their place, so the model reads the two ends as one continuous "
                   "conversation. Put a note where the turns were dropped (\"[12 earlier messages omitted]\"), or "
                   "summarise them.",
    "middle-removed": "keeps the first {head} and the last {tail} of these items and removes every one between them "
                      "from the conversation the model is sent, with nothing in their place, so the turns that spoke "
                      "of them read as if nothing had been there. Put a note where each was (\"[image omitted]\"), "
                      "or a short description of it.",
}


def _message(source: Source) -> str:
    cut = source.cut or Cut()
    if cut.how == "line-cut":
        width = f"{source.kept:,} characters" if source.kept is not None else "a fixed width"
        return (f"`{source.detail}` cuts every line of the text to {width} and leaves nothing where a line lost "
                "its end, so the model reads each cut signature, statement or row as if it were whole. Mark the "
                "lines that were cut (\"…\"), or leave long lines out with a note.")
    if cut.how == "last-item-cut":
        return (f"`{source.detail}` adds the item that no longer fits the budget cut to what is left of it, "
                "mid-text, and stops there with nothing in place of the rest, so the model reads the cut entry "
                "as if it were whole and the list as if it were complete. Leave out the item that does not fit, "
                "and say how many were left out (\"[14 more entities omitted]\").")
    if cut.how in _WHOLE_PART_CUTS:
        return f"`{source.detail}` {_WHOLE_PART_CUTS[cut.how]}"
    if cut.how == "command-cut":
        lines = f"{source.kept:,} lines" if source.kept is not None else "lines"
        return (f"`{source.detail}` keeps only the {'last' if cut.keeps == 'end' else 'first'} {lines} of what the "
                "command prints and leaves nothing in place of the rest, so the model takes them for the whole "
                "output and says that what the cut dropped is not there. Ask the command for one line more and, "
                "when it comes, say the output was cut (\"[first 500 entries shown; narrow the path]\"), or count "
                "what was left out.")
    if cut.how in _COUNTED_CUTS:
        kept = source.kept
        return f"`{source.detail}` " + _COUNTED_CUTS[cut.how].format(
            kept=f"{kept:,}" if kept is not None else "", entries=kept or "few",
            size=f"{kept:,} characters" if kept is not None else "its limit")
    if cut.how in _MIDDLE_CUTS:
        head, _, tail = cut.keeps.partition("+")
        ends = "the first and the last message" if head == tail == "1" else \
            f"the first {head} and the last {tail} messages"
        return f"`{source.detail}` {_MIDDLE_CUTS[cut.how].format(head=head, tail=tail, ends=ends)}"
    if cut.how == "trimmed-turns":
        return (f"`{source.detail}` drops the {'newest' if cut.keeps == 'start' else 'oldest'} messages of the "
                "conversation until it fits its budget and puts nothing in their place, so the model cannot tell "
                "that turns are missing and answers as if it had them all. Say what was left out (\"[12 earlier "
                "messages omitted]\"), or summarise them instead.")
    if cut.how in ("drop-loop", "budget-loop", "ranked-loop", "fit-loop"):
        if cut.how == "drop-loop" and cut.unit != "items":
            what = (f"`{source.detail}` cuts {cut.unit} off the {'end' if cut.keeps == 'start' else 'start'} of an "
                    "item, again and again until the text fits its budget, with nothing in their place")
        elif cut.how == "drop-loop":
            what = (f"`{source.detail}` drops {'the oldest' if cut.keeps == 'end' else 'the latest'} items until "
                    "the text fits its budget, with nothing in their place")
        elif cut.how == "fit-loop":
            what = (f"`{source.detail}` leaves out each item that no longer fits its budget and goes on, with "
                    "nothing in their place")
        elif cut.how == "ranked-loop":
            what = (f"`{source.detail}` keeps the ranked items that fit its budget and drops the rest with nothing "
                    "in their place")
        else:
            what = (f"`{source.detail}` stops adding {cut.unit} once its budget is spent and drops the rest with "
                    "nothing in their place")
        if cut.how == "drop-loop" and cut.unit != "items":
            return (f"{what}, so the model reads each cut text as if it were whole. Mark the end of a text that was "
                    "cut (\"… [truncated]\"), or summarise it instead.")
        if cut.history and cut.keeps == "start":
            what += "; it keeps the oldest turns and drops the newest, the worst end of a history to cut"
        return (f"{what}, so the model cannot tell that content is missing. Say what was left out "
                "(\"[12 older messages omitted]\"), or summarise it instead.")
    if cut.turn:
        size = f"its first {source.kept:,} characters" if source.kept is not None else "a fixed length"
        return (f"`{source.detail}` cuts the text of each turn of the conversation to {size} as it writes the "
                "transcript, and leaves nothing in its place, so the model reads each cut turn as all that was "
                "said. Mark the turns that were cut (\"… [truncated]\"), or summarise long ones instead.")
    if cut.history and cut.keeps == "start":
        return (f"`{source.detail}` cuts the history to its start and drops its newest turns, the worst end to "
                "cut, and leaves nothing in their place, so the model answers without the latest context. Keep "
                "the newest turns instead, and say how many earlier ones were left out.")
    start = cut.keeps == "start"
    if source.kept is not None:
        amount = f"its {'first' if start else 'last'} {source.kept:,} {cut.unit}"
    elif cut.unit == "characters":
        amount = "a fixed length" if start else "a fixed length from its end"
    else:
        amount = f"a fixed number of {cut.unit} from its {'start' if start else 'end'}"
    dropped = "" if start else " (the start is dropped)"
    what = "table" if cut.unit == "rows" else "text"
    return (f"`{source.detail}` cuts the {what} to {amount}{dropped} and leaves nothing in its place, so the model "
            "cannot tell that content is missing and answers as if it had it all. Add a marker with a reference "
            "(\"[truncated; full text: doc-12]\"), or summarise instead.")
