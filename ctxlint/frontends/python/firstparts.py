"""Cuts that keep the first part of something split or listed and drop the rest, in a module that
builds prompts or calls a model:

* ``chunks = split_text_by_token_limit(text, limit)`` then only ``chunks[0]`` is used: the text
  was split to a size and every piece after the first is dropped;
* a function given a conversation (``messages``) that builds a request body from
  ``messages[0]["content"]`` alone: every message after the first is dropped.

A split whose pieces are all used (a loop over them, ``chunks[1:]``, ``len(chunks)``) is not a cut,
nor is ``text.split("\\n")[0]`` (a first line found by a separator, not a size), nor a function that
reads the first message beside the others (``messages[1:]``).
"""

from __future__ import annotations

import ast
from fnmatch import fnmatchcase

from ctxlint.frontends.code.words import is_ranked, matches, names_context_window
from ctxlint.frontends.python.loopshapes import loop_order, only_logs
from ctxlint.frontends.python.nodes import walk
from ctxlint.frontends.python.ordering import own_nodes
from ctxlint.frontends.python.rankedfills import name_words
from ctxlint.frontends.python.unit import Component
from ctxlint.frontends.python.values import Env, Scope
from ctxlint.markers import mentions_cut
from ctxlint.model import Cut, Evidence, EvidenceKind, Observation, Source, SourceKind

Function = ast.FunctionDef | ast.AsyncFunctionDef

# What a call that splits text to a size says in its name or its arguments.
_SIZE_WORDS = ("token", "limit", "size", "length", "max", "budget")
# What the class of an object that splits text to a size is called (LangChain's and LlamaIndex's
# `*TextSplitter`, `SentenceSplitter`, a project's `TokenSplitter` or `Chunker`).
_SPLITTERS = ("splitter", "chunker")
# String methods that split at a separator, not to a size.
_SEPARATOR_SPLITS = {"split", "rsplit", "splitlines", "partition", "rpartition"}
# What a parameter holding a conversation is called.
_CONVERSATIONS = ("messages", "*_messages", "msgs", "history", "chat_history", "conversation")
# What a function that pages through a text, or says it was cut, keeps track of.
_REST_WORDS = ("truncat", "has_more", "next_start", "start_from", "total_chunks", "remaining", "offset")
# What the pieces of one text are called (`chunked_documents`, `pages`), and what says they were
# chosen rather than split (`top_chunks`, `retrieved_chunks`): a selection, whose first n are the best.
_PIECES = ("chunk", "piece", "page", "segment", "split")
_SELECTED = ("top", "best", "rank", "relevan", "retriev", "search", "result", "hit", "match", "sorted", "score")
# What a value built as one whole text is called.
_WHOLE_TEXTS = ("document", "doc", "doc_text", "full_text", "text", "content", "body", "transcript", "paper")
# What a model a call is given is called.
_MODELS = ("llm", "*_llm", "llm_*", "chat_model", "language_model")
# Keys of a request body that carry what the model reads.
_REQUEST_KEYS = {"messages", "inputs", "prompt", "input", "contents"}


class FirstParts(Component):
    def observe(self, context: bool) -> list[Observation]:
        """The first pieces and first messages the module's functions keep (a first piece where
        the module builds prompts, or where the piece is handed to a call given the model)."""
        found: list[Observation] = []
        for fn, scope in self.m.functions:
            if fn.name.startswith("test"):
                continue
            found.extend(self.first_chunks(fn, scope, context))
            observed = self.first_message(fn, scope)
            if observed is not None:
                found.append(observed)
        return found

    # ---- the first piece of a split ------------------------------------------------------------------

    def first_chunks(self, fn: Function, scope: Scope, context: bool) -> list[Observation]:
        """``pieces = split_by_size(text, n)`` where the function uses ``pieces[0]`` and nothing else
        of ``pieces``."""
        found = []
        for name, records in scope.assigns.items():
            # one assignment, or one per branch (`if isinstance(text, str): pieces = trim([...])`)
            splits = [r.value.value if isinstance(r.value, ast.Await) else r.value for r in records]
            if not records or any(r.kind != "=" for r in records) or not all(
                    isinstance(split, ast.Call) and self.splits_to_size(split, scope) for split in splits):
                continue
            split = splits[0]
            assert isinstance(split, ast.Call)
            uses = _loads(fn, name)
            firsts = [u for u in uses if _first(u, self.m.parents)]
            if not firsts or any(not _first(u, self.m.parents) and not _tested(u, self.m.parents) for u in uses):
                continue
            first = self.m.parents[id(firsts[0])]
            assert isinstance(first, ast.Subscript)
            observed = self.first_chunk(fn, scope, first, split, f"`{name}` holds the pieces of "
                                        f"`{self.m.code(split)}`, split to a size", context)
            if observed is not None:
                found.append(observed)
        found.extend(self.leading_chunks(fn, context))
        # `trim([doc])[0].text`: the first piece taken straight from the call that splits
        for node in own_nodes(fn):
            if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Call) and _zero(node.slice) \
                    and self.splits_to_size(node.value, scope):
                observed = self.first_chunk(fn, scope, node, node.value, f"`{self.m.code(node.value.func)}` splits "
                                            "the text to a size", context)
                if observed is not None:
                    found.append(observed)
        return found

    def leading_chunks(self, fn: Function, context: bool) -> list[Observation]:
        """``for chunk in chunks[:n]: document += chunk["data"]``: the first pieces of a text added up
        into one value named as the whole text, in a module that builds prompts: the text is cut
        after its n-th piece and reads as the whole of it. Pieces named as ranked or retrieved
        (``top_chunks``, ``search_chunks``) are a selection, and not reported."""
        if not context:
            return []
        found: list[Observation] = []
        for loop in own_nodes(fn):
            if not isinstance(loop, (ast.For, ast.AsyncFor)) or not isinstance(loop.target, ast.Name):
                continue
            cut = loop.iter
            if not (isinstance(cut, ast.Subscript) and isinstance(cut.slice, ast.Slice) and cut.slice.upper is not None
                    and cut.slice.step is None and (cut.slice.lower is None or _zero(cut.slice.lower))):
                continue
            pieces = _last(cut.value)
            if not any(w in pieces for w in _PIECES) or any(w in pieces for w in _SELECTED):
                continue
            whole = next((statement.target.id for statement in loop.body if isinstance(statement, ast.AugAssign)
                          and isinstance(statement.op, ast.Add) and isinstance(statement.target, ast.Name)
                          and _whole_text(statement.target.id) and any(
                              isinstance(n, ast.Name) and n.id == loop.target.id for n in walk(statement.value))),
                         None)
            if whole is None or loop.orelse:
                continue
            if _notes_rest(fn):  # asked only of a loop of this shape: it walks the whole function twice
                return []
            span = self.m.span(cut)
            step = Evidence(EvidenceKind.FLOW, f"each of them is added to `{whole}`, named as the whole text",
                            self.m.span(loop.body[0]))
            written = " ".join(self.m.code(cut).split()).replace("[ ", "[").replace(" ]", "]")
            source = Source(SourceKind.TRUNCATION, written, span,
                            cut=Cut("pieces", "start", "leading-chunks"), flow=(step,), strong=True)
            found.append(Observation("leading-chunks", span, f"only the first pieces are added to `{whole}`; the "
                                     "rest of the text is dropped", source=source))
        return found

    def first_chunk(self, fn: Function, scope: Scope, first: ast.Subscript, split: ast.Call, how: str,
                    context: bool) -> Observation | None:
        """The finding for ``first``, the first piece of ``split``, when it goes where a model reads
        it: in a module that builds prompts, into a call given the model, or cut to a size named for
        a model's context window (``TokenSplitter(chunk_size=self.max_context_length)``)."""
        if self.cut_sites.goes_to(first, fn) is None or _notes_rest(fn):
            return None
        if not (context or self.to_model(first) or self.fits_window(split, scope)):
            return None
        span = self.m.span(first)
        steps: tuple[Evidence, ...] = (Evidence(EvidenceKind.FLOW, how, self.m.span(split)),)
        written = self.m.code(first)
        if "\n" in written or len(written) > 80:  # a call spread over lines: its name says enough
            written = f"{self.m.code(split.func)}(...)[0]"
        how_cut = "first-chunk"
        ranked = self.joined_in_rank(split, fn)
        task = _start_task(fn, scope)
        item = None if ranked is not None else self.ranked_item(split)
        if item is not None:  # one retrieved item capped on its own: an excerpt already, not a text cut short
            how_cut = "item-first-chunk"
            steps += (Evidence(EvidenceKind.FLOW, f"the text is an item of `{self.m.code(item)}`, ranked items, "
                               "each split on its own", self.m.span(item)),)
        elif ranked is not None:  # the first piece keeps the best items: a budget on what was retrieved
            how_cut = "ranked-first-chunk"
            steps += (Evidence(EvidenceKind.FLOW, f"the text adds up the items of `{self.m.code(ranked)}` in their "
                               "order, ranked items: the first piece keeps the best of them", self.m.span(ranked)),)
        elif task is not None:  # what the model is asked for is at the start of the text
            how_cut = "start-task-first-chunk"
            steps += (Evidence(EvidenceKind.FLOW, f"`{task[0]}` asks for the {task[1]}, which the start of a text "
                               "holds", self.m.span(fn), strong=False),)
        source = Source(SourceKind.TRUNCATION, written, span, cut=Cut("pieces", "start", how_cut),
                        flow=steps, strong=True)
        return Observation(how_cut, span, f"only `{written}` is used; the other pieces are dropped",
                           source=source)

    def joined_in_rank(self, split: ast.Call, fn: Function) -> ast.expr | None:
        """The collection of ranked items (retrieved documents, search results; by name or by a sort
        the code shows) whose items, in order, the function adds up into the text it splits
        (``for item in docs: evidence += item.text`` ... ``split([Document(text=evidence)])[0]``):
        the first piece keeps the items ranked first, the lowest-ranked go, as a budget on retrieved
        context does on purpose. None for a text built otherwise."""
        text = _split_text(split)
        if not isinstance(text, ast.Name):
            return None
        for loop in own_nodes(fn):
            if not isinstance(loop, (ast.For, ast.AsyncFor)) or loop.lineno > split.lineno or not any(
                    isinstance(s, ast.AugAssign) and isinstance(s.op, ast.Add) and isinstance(s.target, ast.Name)
                    and s.target.id == text.id for s in walk(loop)):
                continue
            iterated, keeps = loop_order(loop.iter)
            if keeps == "start" and (is_ranked(self.m.code(iterated))
                                     or self.cut_sites.ranks.best_first(loop, fn) is not None):
                return iterated
        return None

    def ranked_item(self, split: ast.Call) -> ast.expr | None:
        """The collection of ranked items (retrieved documents, search results, by name) over which
        a loop around ``split`` runs, when the text split is that loop's item
        (``for doc in documents: trim([Document(content=doc.get_content())])[0]``); None otherwise."""
        root = _split_text(split)
        while isinstance(root, (ast.Call, ast.Attribute, ast.Subscript)):
            root = root.func if isinstance(root, ast.Call) else root.value
        if not isinstance(root, ast.Name):
            return None
        node = self.m.parents.get(id(split))
        while node is not None and not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            if isinstance(node, (ast.For, ast.AsyncFor)) and isinstance(node.target, ast.Name) \
                    and node.target.id == root.id:
                iterated = loop_order(node.iter)[0]
                return iterated if is_ranked(self.m.code(iterated)) else None
            node = self.m.parents.get(id(node))
        return None

    def to_model(self, node: ast.expr) -> bool:
        """Whether ``node`` is an argument (at any depth) of a call that is also given the model
        (``prompt.generate(self.llm, data=Input(text=chunks[0]))``)."""
        current: ast.AST = node
        while not isinstance(current, ast.stmt):
            parent = self.m.parents.get(id(current))
            if parent is None:
                return False
            if isinstance(parent, ast.Call) and any(
                    fnmatchcase(_last(a), p) for a in (*parent.args, *(k.value for k in parent.keywords))
                    for p in _MODELS):
                return True
            current = parent
        return False

    def splits_to_size(self, call: ast.Call, scope: Scope) -> bool:
        """A call named for splitting or chunking, whose name or arguments say a size
        (``split_text_by_token_limit(text, limit)``, ``chunk_text(text, max_tokens=n)``), or a
        call of a splitter the function built with a size (``splitter.split_text(text)`` after
        ``splitter = CharacterTextSplitter.from_tiktoken_encoder(chunk_size=n)``; ``trim([doc])``
        after ``trim = TokenSplitter(chunk_size=n)``)."""
        func = call.func
        built = self.splitter_values(call, scope)
        if built and all(self.sized_splitter(value) for value in built):
            return True
        name = (func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")).lower()
        if name in _SEPARATOR_SPLITS or not ("split" in name or "chunk" in name):
            return False
        words = [name] + [self.m.code(a).lower() for a in call.args] + \
                [f"{k.arg}={self.m.code(k.value)}".lower() for k in call.keywords]
        return any(w in word for word in words for w in _SIZE_WORDS)

    def splitter_values(self, call: ast.Call, scope: Scope) -> list[ast.expr]:
        """What the object ``call`` runs (or whose method it calls) is given: the values of a local
        name (``trim = TokenSplitter(...)``), or of a class attribute the method reads through
        ``self`` (``trim_func: TokenSplitter = TokenSplitter.withx(chunk_size=n)``); [] when any
        assignment of it has no value seen."""
        func = call.func
        receiver = func.value if isinstance(func, ast.Attribute) and not _self_attribute(func) else func
        if isinstance(receiver, ast.Name) and receiver.id in scope.assigns:
            records = scope.assigns[receiver.id]
        elif _self_attribute(receiver) and scope.cls is not None:
            assert isinstance(receiver, ast.Attribute)
            records = scope.cls.assigns.get(receiver.attr) or []
        else:
            return []
        values = [r.value for r in records]
        return [v for v in values if v is not None] if all(v is not None for v in values) else []

    def fits_window(self, split: ast.Call, scope: Scope) -> bool:
        """A split whose splitter is built with a size named for a model's context window
        (``chunk_size=self.max_context_length``, ``chunk_size=MAX_CONTEXT_LEN``): the text is cut to
        fit what a model reads, wherever the module sends it."""
        return any(isinstance(node, ast.Call) and any(
            any(w in (k.arg or "").lower() for w in _SIZE_WORDS) and names_context_window(self.m.code(k.value))
            for k in node.keywords) for value in self.splitter_values(split, scope) for node in walk(value))

    def sized_splitter(self, value: ast.expr) -> bool:
        """A splitter or chunker built with a size (``TokenSplitter(chunk_size=n)``), in either
        branch of a conditional (``self.trim or TokenSplitter(...)``)."""
        return any(isinstance(node, ast.Call) and any(w in self.m.code(node.func).lower() for w in _SPLITTERS)
                   and any(w in (k.arg or "").lower() for k in node.keywords for w in _SIZE_WORDS)
                   for node in walk(value))

    # ---- the first message of a conversation ----------------------------------------------------------

    def first_message(self, fn: Function, scope: Scope) -> Observation | None:
        """A function given a conversation that reads only its first message's content and builds a
        request body (``{"messages": ...}``, ``{"inputs": ...}``) from it."""
        # The parameters first: most functions are given no conversation, and the walk is the cost.
        conversations = [p for p in scope.params if matches(p.lower(), _CONVERSATIONS)]
        if not conversations or not any(isinstance(n, ast.Dict) and any(
                isinstance(k, ast.Constant) and k.value in _REQUEST_KEYS for k in n.keys) for n in walk(fn)):
            return None
        owner = self.m.parents.get(id(fn))
        if "embed" in f"{fn.name} {getattr(owner, 'name', '')}".lower():
            return None  # a request for embeddings: no model answers it
        for param in conversations:
            annotation = (self.callees.param_annotation(param, Env(scope)) or "").replace(" ", "").lower()
            if annotation and not annotation.startswith(("list", "sequence", "iterable", "optional[list")):
                continue
            uses = _loads(fn, param)
            rebound = _rebound_from_first(fn, param, self.m.parents)
            parents = self.m.parents
            content = [u for u in uses if _first(u, parents) and _content(parents[id(u)], parents)]
            if not content or any(not _first(u, parents) and not _tested(u, parents) and u.lineno <= rebound
                                  for u in uses):
                continue
            read = self.m.parents[id(self.m.parents[id(content[0])])]
            assert isinstance(read, ast.expr)
            span = self.m.span(read)
            source = Source(SourceKind.TRUNCATION, self.m.code(read), span,
                            cut=Cut("messages", "start", "first-message", history=True), strong=True)
            return Observation("first-message", span, f"`{fn.name}` builds a request body from it and reads no "
                               f"other message of `{param}`", source=source)
        return None


# What a task that reads only the start of a text asks for, by the word its function or class is
# named with: a title sits at the top of a document, and its first lines show its language.
_START_TASKS = {"title": "title", "titles": "title", "language": "language", "lang": "language"}


def _start_task(fn: Function, scope: Scope) -> tuple[str, str] | None:
    """The name of the function or of its class, and what it asks for, when that name says the task
    is to find what the start of a text holds (``TitleExtractor.extract``, ``detect_language``)."""
    cls = scope.cls.node if scope.cls is not None and isinstance(scope.cls.node, ast.ClassDef) else None
    for name in (fn.name, cls.name if cls is not None else ""):
        asked = sorted(name_words(name) & set(_START_TASKS))
        if asked:
            return name, _START_TASKS[asked[0]]
    return None


def _split_text(split: ast.Call) -> ast.expr | None:
    """The text a call that splits is given: its first argument, taken out of a one-item list and
    out of the document it is wrapped in (``trim([Document(text=evidence)])``)."""
    text: ast.expr | None = split.args[0] if split.args else None
    if isinstance(text, (ast.List, ast.Tuple)) and len(text.elts) == 1:
        text = text.elts[0]
    if isinstance(text, ast.Call):
        wrapped = {k.arg: k.value for k in text.keywords if k.arg}
        text = next((wrapped[k] for k in ("text", "content", "page_content") if k in wrapped),
                    text.args[0] if text.args else None)
    return text


def _notes_rest(fn: Function) -> bool:
    """A function that keeps track of what it left out (``truncated = chunk.has_more``,
    ``next_start_char``, a string that says so): a page of the text, with a way to the next. A
    log line (``logging.info(f"len (trimmed): ...")``) tells whoever reads the log, not the model."""
    logged = {id(n) for statement in walk(fn) if isinstance(statement, ast.stmt) and only_logs(statement)
              for n in walk(statement)}
    for node in walk(fn):
        if id(node) in logged:
            continue
        name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else \
            node.arg if isinstance(node, (ast.keyword, ast.arg)) else \
            node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) and len(node.value) < 40 \
            else None  # a key: {"has_more": ...}
        if name and any(w in name.lower() for w in _REST_WORDS):
            return True
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and mentions_cut(node.value):
            return True
    return False


def _whole_text(name: str) -> bool:
    """A name of one whole text (``document``, ``document_text``), not of a context gathered to answer
    from nor of a part (``context``, ``excerpt``, ``preview``)."""
    lowered = name.lower()
    return lowered in _WHOLE_TEXTS or lowered.startswith(("document_", "doc_", "full_")) \
        or lowered.endswith(("_document", "_text")) and not lowered.startswith(("context", "preview", "excerpt"))


def _self_attribute(node: ast.expr) -> bool:
    """``self.trim_func``: an attribute of the method's own object."""
    return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self"


def _zero(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value == 0 and not isinstance(node.value, bool)


def _last(node: ast.expr) -> str:
    return (node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else "").lower()


def _loads(fn: Function, name: str) -> list[ast.Name]:
    """Where ``fn`` reads ``name`` (not in functions nested in it)."""
    found = []
    stack: list[ast.AST] = list(fn.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load):
            found.append(node)
        stack.extend(ast.iter_child_nodes(node))
    return found


def _first(use: ast.Name, parents: dict[int, ast.AST]) -> bool:
    """``name[0]``: the use is the value of a subscript by the constant 0."""
    parent = parents.get(id(use))
    return isinstance(parent, ast.Subscript) and parent.value is use and \
        isinstance(parent.slice, ast.Constant) and parent.slice.value == 0


def _tested(use: ast.Name, parents: dict[int, ast.AST]) -> bool:
    """A use that only decides (``if not chunks``, ``isinstance(messages, list)``, ``len(x) == 0``)."""
    current: ast.AST = use
    while True:
        parent = parents.get(id(current))
        if parent is None or isinstance(parent, ast.stmt) and not isinstance(parent, (ast.If, ast.While)):
            return False
        if isinstance(parent, (ast.If, ast.While, ast.IfExp)) and current is parent.test:
            return True
        if isinstance(parent, (ast.Compare, ast.UnaryOp, ast.BoolOp)):
            return True
        if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and parent.func.id in ("isinstance",
                                                                                                     "len"):
            current = parent
            continue
        if isinstance(parent, ast.Call):
            return False
        current = parent


def _content(first: ast.AST, parents: dict[int, ast.AST]) -> bool:
    """``messages[0]["content"]`` or ``messages[0].content``: the text of the first message."""
    parent = parents.get(id(first))
    if isinstance(parent, ast.Subscript) and parent.value is first:
        return isinstance(parent.slice, ast.Constant) and parent.slice.value == "content"
    return isinstance(parent, ast.Attribute) and parent.attr == "content"


def _rebound_from_first(fn: Function, name: str, parents: dict[int, ast.AST]) -> int:
    """The line from which ``name`` holds a value made from its first item (``messages =
    messages[0]["content"] + "..."``): later reads are of that value. The last line of ``fn``
    when it is not rebound so."""
    for node in walk(fn):
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            uses = [n for n in walk(node.value) if isinstance(n, ast.Name) and n.id == name]
            if uses and all(_first(u, parents) for u in uses):
                return node.lineno
    return fn.end_lineno or fn.lineno
