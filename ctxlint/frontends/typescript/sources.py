"""Where a value's content comes from when it is not the developer's: an HTTP response, a file read
from a path that is not the repository's own, the request a route handler receives, retrieved
documents, a tool's result (the catalogue's ``sources``); and collections in no fixed order."""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from fnmatch import fnmatchcase
from typing import TYPE_CHECKING

from ctxlint.frontends.code import words
from ctxlint.frontends.typescript import fills, streams
from ctxlint.frontends.typescript.instances import made_client, method_returns
from ctxlint.frontends.typescript.knowledge import (
    FUNCTIONS,
    MAX_RESOLVE,
    MAX_SOURCE_STEPS,
    MEASURES,
    MEASURING_CALLS,
    MEASURING_METHODS,
    STATIC_PATH_CALLS,
    STATIC_PATH_NAMES,
    UNORDERED_CALLS,
    Node,
    snake,
)
from ctxlint.frontends.typescript.names import Names
from ctxlint.frontends.typescript.unit import Module
from ctxlint.frontends.typescript.values import Binding, Env, Scope, described, short_call
from ctxlint.frontends.typescript.walked import walked_collection
from ctxlint.model import Evidence, EvidenceKind, Source, SourceKind

if TYPE_CHECKING:
    from ctxlint.frontends.typescript.classes import Classes

_BINARY_BODIES = ("arrayBuffer", "blob", "bytes", "formData")  # a response's body read as bytes, not text


@dataclass(eq=False)
class Sources:
    """Follows values to third-party content and to unordered collections."""

    m: Module
    names: Names
    classes: Classes | None = None  # the module's declared types, set once they are built (analyzer.py)

    def untrusted(self, node: Node, env: Env) -> Source | None:
        self.m.source_steps += 1
        if env.depth > MAX_RESOLVE or self.m.source_steps > MAX_SOURCE_STEPS:
            return None
        node = self.m.unwrap(node)
        kind = node.type
        if kind == "await_expression":
            inner = next((c for c in node.named_children if c.type != "comment"), None)
            return self.untrusted(inner, env) if inner is not None and not self.m.too_long(node) else None
        if kind in ("member_expression", "subscript_expression"):
            if self.m.too_long(node):
                return None
            obj = self.m.field(node, "object")
            key = self.names.property_key(node) if kind == "member_expression" else None
            if key in MEASURES:
                return None
            carrier = self.carrier(obj, env)
            if carrier is not None:
                what, kind_of, strong = carrier
                if self.content_attribute(kind_of, key):
                    return Source(SourceKind.UNTRUSTED, described(kind_of, f"{what}.{key}"), self.m.span(node),
                                  strong=strong)
                return None
            binding = self.names.resolve(node, env)
            found = None if binding is None else self.m.follow_binding(binding, self.untrusted)
            if found is not None:
                return found
            return self.untrusted(obj, env) if obj is not None else None
        if kind == "call_expression":
            return None if self.m.too_long(node) else self.untrusted_call(node, env)
        if kind == "new_expression":
            return streams.constructed(self, node, env)
        if kind in ("identifier", "shorthand_property_identifier"):
            name = self.m.code(node)
            binding = self.names.resolve(node, env)
            if binding is not None and binding.part is not None:
                carrier = self.carrier(binding.value, binding.env)
                if carrier is not None:
                    what, kind_of, strong = carrier
                    if self.content_attribute(kind_of, binding.part):
                        return Source(SourceKind.UNTRUSTED, described(kind_of, f"{what}.{binding.part}"),
                                      self.m.span(binding.target), strong=strong)
                    return None
            if binding is not None:
                found = self.bound_untrusted(binding)
                if found is not None:
                    step = Evidence(EvidenceKind.FLOW, f"`{name}` holds it", self.m.span(binding.target))
                    return replace(found, flow=found.flow + (step,))
            scope: Scope | None = env.scope
            while scope is not None:
                if name in scope.tool_results:
                    return Source(SourceKind.UNTRUSTED, "a tool result", scope.tool_results[name])
                if name in scope.params and binding is None and (chunk := streams.stream_chunk(self, scope, name)):
                    return chunk
                if name in scope.params and binding is None:
                    # A field of a method's object parameter: what the tree's calls of it pass for it.
                    return fills.field_source(self, scope, name)
                if name in scope.assigns or name in scope.params:
                    break
                scope = scope.parent
            return None
        if kind in ("template_string", "binary_expression", "ternary_expression", "array", "object", "pair",
                    "template_substitution", "spread_element"):
            for child in node.named_children:
                if child.type in ("property_identifier", "comment"):
                    continue
                if kind == "ternary_expression" and child == self.m.field(node, "condition"):
                    continue
                found = self.untrusted(child, env)
                if found is not None:
                    return found
        return None

    def bound_untrusted(self, binding: Binding) -> Source | None:
        """The untrusted content a name's value, or what is added to it afterwards, holds. Like its
        text (see name_text), it is kept when read outside any other name's reading: a page
        quoted in 10,000 messages is followed to its fetch once, not 10,000 times."""
        key = self.m.kept_key(binding)
        if key is not None and key in self.m.untrusted_memo:
            return self.m.untrusted_memo[key]
        if not self.m.enter(binding.value):
            return None
        try:
            found = self.untrusted(binding.value, binding.env)
            for extra in binding.extras:
                if found is None and extra.value is not None:
                    found = self.untrusted(extra.value, self.written_in(extra.value, binding.env))
        finally:
            self.m.leave(binding.value)
        if key is not None:
            self.m.untrusted_memo[key] = found
        return found

    def written_in(self, value: Node, env: Env) -> Env:
        """``env``, or the scope of the callback that adds ``value`` to a name of an outer scope
        (``child.stdout.on("data", (chunk) => { out += chunk })``): its names are read there."""
        scope = self.m.innermost_scope(value)
        return env if scope is env.scope else Env(scope, (), env.depth + 1)

    def untrusted_call(self, call: Node, env: Env) -> Source | None:
        callee = self.m.callee(call)
        if callee is None:
            return None
        args = self.m.args(call)
        qualified = self.m.qualified(callee) or ""
        if qualified in MEASURING_CALLS or self.m.sink_of(call) is not None:
            return None
        files = self.m.ts.sources["files"]
        if qualified in files["calls"] or qualified.rsplit(".", 1)[-1] in files["methods"] and (
                qualified.split(".")[0] in files["modules"]):
            path = args[0] if args else None
            if path is not None and (self.m.string_value(path) or self.m.code(path)) in files.get("stdin", ()):
                return Source(SourceKind.UNTRUSTED, f"piped standard input ({short_call(qualified)}(...))",
                              self.m.span(call), origin="stdin", whole=True)
            if path is not None and not self.static_path(path, env):
                return Source(SourceKind.UNTRUSTED, f"{short_call(qualified)}(...)", self.m.span(call))
            return None
        if qualified in self.m.ts.source("processes", "calls"):
            return Source(SourceKind.UNTRUSTED, described("process", f"{short_call(qualified)}(...)"),
                          self.m.span(call), origin="subprocess")
        if callee.type == "subscript_expression":
            holder = self.m.dotted(self.m.field(callee, "object")) or ""
            if words.TOOL_HOLDERS.search(snake(holder.rsplit(".", 1)[-1])):
                return Source(SourceKind.UNTRUSTED, f"a tool result ({holder}[...](...))", self.m.span(call))
        if callee.type == "member_expression":
            method = self.m.code(self.m.field(callee, "property"))
            receiver = self.m.field(callee, "object")
            if method in MEASURING_METHODS:
                return None
            carrier = self.carrier(receiver, env)
            if carrier is not None:
                what, kind_of, strong = carrier
                ts = self.m.ts
                if kind_of == "http" and method == "then" and self.reads_bytes(call):
                    return None  # `fetch(url).then((res) => res.blob())`: an image's bytes, not text
                if (kind_of == "http" and (method in ts.source("http", "methods") or method == "then")) or (
                        kind_of == "request" and method in ts.source("requests", "methods")) or kind_of == "file":
                    return Source(SourceKind.UNTRUSTED, described(kind_of, f"{what}.{method}()"), self.m.span(call),
                                  strong=strong)
            receiver_name = snake((self.m.dotted(receiver) or "").rsplit(".", 1)[-1])
            retrievers = self.m.ts.sources["retrievers"]
            if method in retrievers["methods"]:
                return Source(SourceKind.UNTRUSTED, f"retrieved documents ({method}(...))", self.m.span(call),
                              origin="retrieval")
            if method in retrievers["receiver_methods"] and any(r in receiver_name for r in retrievers["receivers"]):
                return Source(SourceKind.UNTRUSTED, f"retrieved documents ({receiver_name}.{method}(...))",
                              self.m.span(call), strong=False, origin="retrieval")
            if method in self.m.ts.source("tool_results", "methods"):
                return Source(SourceKind.UNTRUSTED, f"a tool result ({self.m.short(callee)}(...))", self.m.span(call))
            if words.TOOL_RUNNERS.search(snake(method)) or (method == "execute" and "tool" in receiver_name):
                return Source(SourceKind.UNTRUSTED, f"a tool result ({self.m.short(callee)}(...))", self.m.span(call))
            if method in ("text", "json") and self.is_request_name(receiver, env):
                return Source(SourceKind.UNTRUSTED, described("request", f"{self.m.short(callee)}()"),
                              self.m.span(call), strong=False)
            found = self.untrusted(receiver, env) if receiver is not None else None
            if found is None and receiver is not None and self.classes is not None:
                found = method_returns(self, self.classes, call, receiver, method, env)
            if found is not None:
                return found
        elif callee.type == "identifier":
            name = self.m.code(callee)
            if words.TOOL_RUNNERS.search(snake(name)):
                return Source(SourceKind.UNTRUSTED, f"a tool result ({name}(...))", self.m.span(call))
        target = self.names.function_for(call, env)
        if target is not None:
            found = self.m.follow(target[0], self.returned_untrusted, target[2])
            if found is not None:
                step = Evidence(EvidenceKind.FLOW, f"returned by `{self.m.code(callee)}()`", self.m.span(call))
                return replace(found, flow=found.flow + (step,))
            return None
        imported = self.names.imported_function(self.m.code(callee)) if callee.type == "identifier" else None
        if imported is not None:  # a function of another module of the tree that returns what it fetched
            found = imported[0].sources.returned_untrusted(imported[2])
            if found is not None and self.carried_across(found):
                step = Evidence(EvidenceKind.FLOW, f"returned by `{self.m.code(callee)}()` "
                                f"({os.path.basename(imported[0].m.path)})", self.m.span(call))
                return replace(found, flow=found.flow + (step,))
        for arg in args:
            if arg.type in FUNCTIONS:
                continue
            found = self.untrusted(arg, env)
            if found is not None:
                return found
        # A call the code does not show, named for fetching web pages, whose arguments show no
        # source: the name is the only evidence.
        named = self.m.field(callee, "property") if callee.type == "member_expression" else callee
        if named is not None and words.WEB_FETCHERS.search(snake(self.m.code(named))):
            return Source(SourceKind.UNTRUSTED, f"a web page ({self.m.short(callee)}(...))", self.m.span(call),
                          strong=False)
        if named is not None and words.SIMILARITY_SEARCHERS.search(snake(self.m.code(named))):
            return Source(SourceKind.UNTRUSTED, f"retrieved documents ({self.m.short(callee)}(...))",
                          self.m.span(call), strong=False, origin="retrieval")
        return None

    def returned_untrusted(self, env: Env) -> Source | None:
        """What any return of the function whose scope ``env`` reads carries, the last first: a
        helper that returns null when nothing was piped and the text it read otherwise is a source."""
        for returned in reversed(env.scope.returns):
            found = self.untrusted(returned, env)
            if found is not None:
                return found
        return None

    def carried_across(self, found: Source) -> bool:
        """Whether what another module's function returns is third-party text at its caller: not a
        file it reads (the path is the caller's to tell, and that module cannot read it: the
        function's parameters stay unbound; standard input is no path and is carried), nor bytes
        it downloads (an image, not text a label could mark)."""
        if found.origin == "stdin":
            return True
        files = self.m.ts.sources["files"]
        called = found.detail.split("(", 1)[0]
        if called in files["calls"] or called.rsplit(".", 1)[-1] in files["methods"]:
            return False
        return not found.detail.endswith(tuple(f".{m}()" for m in _BINARY_BODIES))

    def reads_bytes(self, then: Node) -> bool:
        """Whether ``.then(callback)`` reads the response's body as bytes (``(res) => res.blob()``)."""
        args = self.m.args(then)
        callback = self.m.unwrap(args[0]) if args else None
        body = self.m.field(callback, "body") if callback is not None and callback.type == "arrow_function" else None
        body = self.m.unwrap(body) if body is not None else None
        if body is None or body.type != "call_expression":
            return False
        callee = self.m.unwrap(self.m.field(body, "function"))
        prop = self.m.field(callee, "property") if callee is not None and callee.type == "member_expression" else None
        return prop is not None and self.m.code(prop) in _BINARY_BODIES

    def carrier(self, node: Node | None, env: Env) -> tuple[str, str, bool] | None:
        """``(what, kind, strong)`` when ``node`` holds third-party content: an HTTP response
        (``http``), a request to the server (``request``), a file handle (``file``), a command's
        result (``process``), or a command whose output comes on a stream (``stream``, streams.py)."""
        if node is None or env.depth > MAX_RESOLVE:
            return None
        node = self.m.unwrap(node)
        if node.type == "await_expression":
            inner = next((c for c in node.named_children if c.type != "comment"), None)
            return self.carrier(inner, env)
        if node.type == "call_expression":
            callee = self.m.callee(node)
            if callee is None:
                return None
            qualified = self.m.qualified(callee) or ""
            http = self.m.ts.sources["http"]
            if qualified in http["calls"]:
                return f"{short_call(qualified)}(...)", "http", True
            if qualified.rsplit(".", 1)[-1] in http["fetchers"] and self.names.function_for(node, env) is None:
                return f"{short_call(qualified)}(...)", "http", True  # the fetch function, handed in
            if qualified in self.m.ts.source("processes", "results") or self.promisified_command(callee, env):
                return f"{short_call(qualified)}(...)", "process", True
            if qualified in self.m.ts.source("processes", "streams"):
                return f"{short_call(qualified)}(...)", "stream", True
            if callee.type == "member_expression":
                method = self.m.code(self.m.field(callee, "property"))
                root = qualified.split(".")[0]
                if method in http["verbs"] and (root in http["clients"] or self.m.imports.get(root, "").split(".")[0]
                                                in http["clients"]):
                    return f"{short_call(qualified)}(...)", "http", True
                if method in http["verbs"] and made_client(self, self.m.field(callee, "object"), env):
                    return f"{self.m.short(callee)}(...)", "http", True
                handle = next((h for h in self.m.ts.source("files", "handles") if qualified.startswith(h)), None)
                if handle is not None:
                    path = self.m.args(node)[0] if self.m.args(node) else None
                    if path is not None and not self.static_path(path, env):
                        return f"{handle}(...)", "file", True
            return None
        if node.type == "identifier":
            name = self.m.code(node)
            scope: Scope | None = env.scope
            while scope is not None:
                if name in scope.params:
                    annotation = scope.params[name]
                    types = self.m.ts.request_types
                    if annotation and types is not None and types.search(annotation):
                        return name, "request", True
                    if scope.handler and scope.positional[:1] == [name]:
                        return name, "request", True
                    return None
                if name in scope.assigns:
                    break
                scope = scope.parent
            binding = self.names.resolve(node, env)
            if binding is not None:
                return self.m.follow_binding(binding, self.carrier)
        return None

    def promisified_command(self, callee: Node, env: Env) -> bool:
        """``run`` bound to ``promisify(exec)``: a call of it resolves to the command's output."""
        if callee.type != "identifier":
            return False
        binding = self.names.resolve(callee, env)
        value = self.m.unwrap(binding.value) if binding is not None and binding.value is not None else None
        if value is None or value.type != "call_expression":
            return False
        made_by = self.m.qualified(self.m.unwrap(self.m.field(value, "function"))) or ""
        args = self.m.args(value)
        return made_by.rsplit(".", 1)[-1] == "promisify" and len(args) == 1 and (
            self.m.qualified(self.m.unwrap(args[0])) or "") in self.m.ts.source("processes", "promisified")

    def is_request_name(self, node: Node | None, env: Env) -> bool:
        return node is not None and self.m.unwrap(node).type == "identifier" and (
            self.m.code(node) in self.m.ts.source("requests", "names"))

    def content_attribute(self, kind: str, key: str | None) -> bool:
        """Whether attribute ``key`` of a carrier of ``kind`` holds its content (``response.data``)."""
        return (kind == "http" and key in self.m.ts.source("http", "attributes")
                or kind == "request" and key in self.m.ts.source("requests", "attributes")
                or kind == "process" and key in self.m.ts.source("processes", "attributes"))

    def static_path(self, node: Node, env: Env) -> bool:
        """A path built only from literals, the module's own location and configuration names."""
        if env.depth > MAX_RESOLVE:
            return False
        node = self.m.unwrap(node)
        kind = node.type
        if kind in ("string", "number"):
            return True
        if kind == "template_string":
            return all(self.static_path(c.named_children[0], env) for c in node.named_children
                       if c.type == "template_substitution" and c.named_children)
        if kind == "binary_expression":
            left, right = self.m.field(node, "left"), self.m.field(node, "right")
            return self.static_path(left, env) and (
                self.static_path(right, env) or not words.UPLOAD_WORDS.search(self.m.code(node)))
        if kind in ("call_expression", "new_expression"):
            callee = self.m.field(node, "function") or self.m.field(node, "constructor")
            qualified = self.m.qualified(self.m.unwrap(callee)) or "" if callee is not None else ""
            if qualified in STATIC_PATH_CALLS or qualified.rsplit(".", 1)[-1] in ("join", "resolve", "dirname"):
                args = self.m.args(node)
                return all(self.static_path(a, env) for a in args) or (
                    bool(args) and self.static_path(args[0], env) and not words.UPLOAD_WORDS.search(self.m.code(node)))
            return False
        if kind in ("identifier", "member_expression", "meta_property", "subscript_expression"):
            dotted = self.m.dotted(node) or self.m.code(node)
            if dotted in STATIC_PATH_NAMES or dotted.startswith(("import.meta", "process.env")):
                return True
            if any(fnmatchcase(snake(dotted.rsplit(".", 1)[-1]), p) for p in words.CONFIG_NAMES):
                return True
            binding = self.names.resolve(node, env)
            if binding is not None and not binding.extras:
                return self.m.follow(binding.value, self.static_path, binding.value, binding.env, otherwise=False)
        return False

    def unordered(self, node: Node, env: Env) -> str | None:
        """What makes ``node`` a collection in no fixed order: a directory listing, a glob, a shuffle."""
        if env.depth > MAX_RESOLVE:
            return None
        node = self.m.unwrap(node)
        if node.type == "await_expression":
            inner = next((c for c in node.named_children if c.type != "comment"), None)
            return self.unordered(inner, env) if inner is not None else None
        if node.type == "call_expression":
            callee = self.m.unwrap(self.m.field(node, "function"))
            qualified = self.m.qualified(callee) or "" if callee is not None else ""
            if qualified in UNORDERED_CALLS:
                return UNORDERED_CALLS[qualified]
            if callee is not None and callee.type == "member_expression":
                method = self.m.code(self.m.field(callee, "property"))
                args = self.m.args(node)
                if method == "sort" and args and "Math.random" in self.m.code(args[0]):
                    return "Math.random() shuffle"
                if method in ("map", "filter", "slice", "flatMap"):
                    return self.unordered(self.m.field(callee, "object"), env)
            return None
        if node.type in ("identifier", "member_expression"):
            binding = self.names.resolve(node, env)
            if binding is not None:
                return self.m.follow_binding(binding, self.unordered)
        return None

    def iteration_sources(self, node: Node, env: Env) -> list[Source]:
        found = self.unordered_source(node, env)
        if found:
            return found
        node = self.m.unwrap(node)
        collection = walked_collection(self.m, node)
        if collection is not None:  # `p` of `paths.forEach((p) => ...)`: the items in the listing's order
            return self.unordered_source(collection, env)
        if node.type == "call_expression":
            callee = self.m.unwrap(self.m.field(node, "function"))
            if callee is not None and callee.type == "member_expression" and self.m.code(
                    self.m.field(callee, "property")) in ("join", "map"):
                return self.unordered_source(self.m.field(callee, "object"), env)
        return []

    def unordered_source(self, node: Node, env: Env) -> list[Source]:
        detail = self.unordered(node, env)
        return [] if detail is None else [Source(SourceKind.UNORDERED_ITERATION, detail, self.m.span(node))]
