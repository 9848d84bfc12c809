"""Where a value's content comes from: third-party content (HTTP bodies, files from paths that
are not the repository's own, uploads, e-mails, tool results), text cut to a length, and
serialisation without sorted keys (with the fix that sorts it)."""

from __future__ import annotations

import ast
import re
from dataclasses import replace
from fnmatch import fnmatchcase

from ctxlint.frontends.python.knowledge import (
    ADDS,
    CONFIG_NAMES,
    EMAIL_CONTENT_METHODS,
    EMAIL_PARSER_METHODS,
    EMAIL_PARSERS,
    FILE_CONTENT_METHODS,
    FILE_OPENERS,
    HTTP_CALLS,
    HTTP_CLIENTS,
    HTTP_CONTENT_ATTRS,
    HTTP_CONTENT_METHODS,
    HTTP_VERBS,
    MAX_DEPTH,
    MEASURES,
    MEASURING_METHODS,
    MIN_CUT,
    NOT_VARIABLES,
    PATH_BUILDERS,
    PATH_METHODS_STATIC,
    PATH_READERS,
    TOOL_HOLDERS,
    TOOL_RUNNERS,
    UPLOAD_WORDS,
    YAML_DUMPERS,
)
from ctxlint.frontends.python.literals import string_value, value_parts
from ctxlint.frontends.python.unit import Component
from ctxlint.frontends.python.values import Env, Scope
from ctxlint.model import Evidence, EvidenceKind, Fix, Role, Segment, Source, SourceKind

def arguments(call: ast.Call) -> list[ast.expr]:
    """The values a call passes, positional and by keyword, in neither case starred."""
    return [a for a in call.args if not isinstance(a, ast.Starred)] + [k.value for k in call.keywords
                                                                       if k.arg is not None]


class Sources(Component):
    # ---- serialisation without sorted keys -------------------------------------------------------------

    def serialization_source(self, call: ast.Call, qualified: str, env: Env) -> Source | None:
        keyword = next((k for k in call.keywords if k.arg == "sort_keys"), None)
        if keyword is not None:
            if not (isinstance(keyword.value, ast.Constant) and keyword.value.value is False):
                return None  # sort_keys=True, or a value we cannot know
        elif qualified in YAML_DUMPERS:
            return None  # yaml.dump sorts keys unless told not to
        elif any(k.arg is None for k in call.keywords):
            return None  # the options may hold sort_keys
        positional = [a for a in call.args if not isinstance(a, ast.Starred)]
        if not positional or not self.may_be_mapping(positional[0], env):
            return None
        return Source(SourceKind.UNSORTED_SERIALIZATION, qualified, self.m.span(call), self.sort_keys_fix(call, keyword))

    def may_be_mapping(self, node: ast.expr, env: Env) -> bool:
        """False for values that certainly have no keys (text, numbers, lists of scalars)."""
        if env.depth > MAX_DEPTH or not self.m.step():
            return True
        if isinstance(node, ast.JoinedStr) or (isinstance(node, ast.Constant) and isinstance(
                node.value, (str, bytes, int, float)) and not isinstance(node.value, bool)):
            return False
        if isinstance(node, ast.Constant):
            return node.value not in (True, False, None)
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            return any(isinstance(e, ast.Starred) or self.may_be_mapping(e, env) for e in node.elts)
        if isinstance(node, ast.Call):
            qualified = self.m.qualified(node.func) or ""
            if qualified in ("str", "int", "float", "len", "repr", "bool", "sorted"):
                return False
            if isinstance(node.func, ast.Attribute) and node.func.attr in (
                "strip", "lower", "upper", "format", "join", "isoformat", "strftime", "read", "read_text",
            ):
                return False
            return True
        if isinstance(node, ast.Name):
            annotation = self.scopes.param_annotation(node.id, env)
            if annotation is not None and annotation.replace(" ", "") in (
                "str", "int", "float", "bool", "list[str]", "List[str]", "str|None", "Optional[str]",
            ):
                return False
        if isinstance(node, (ast.Name, ast.Attribute)):
            binding = self.scopes.resolve(node, env)
            if binding is not None and not binding.extras and self.m.enter(binding.value):
                try:
                    return self.may_be_mapping(binding.value, binding.env)
                finally:
                    self.m.leave(binding.value)
        return True

    def sort_keys_fix(self, call: ast.Call, keyword: ast.keyword | None) -> Fix:
        """Add ``sort_keys=True`` (or turn ``sort_keys=False`` into True) as a replacement of
        exactly the call's span, in the layout the call is written in: one argument per line
        with a trailing comma gets a line of its own."""
        if id(call) in self.m.fixes:
            return self.m.fixes[id(call)]
        text = self.m.text
        start, end = self.m.offsets(call)
        if keyword is not None:
            value_start, value_end = self.m.offsets(keyword.value)
            replacement = text[start:value_start] + "True" + text[value_end:end]
            description = "set sort_keys=True"
        else:
            description = "add sort_keys=True"
            given: list[ast.expr | ast.keyword] = sorted([*call.args, *call.keywords], key=self.m.offsets)
            last_end = self.m.offsets(given[-1])[1]
            closing = text.rindex(")", last_end, end)
            rest = text[last_end:closing]
            comma = rest.find(",")
            if comma >= 0 and "\n" in rest[comma:]:
                # One argument per line with a trailing comma: add a line in the same style.
                before_last = self.m.offsets(given[-1])[0]
                previous_end = self.m.offsets(given[-2])[1] if len(given) > 1 else self.m.offsets(call.func)[1]
                gap = text[previous_end:before_last]
                indent = gap.rsplit("\n", 1)[-1] if "\n" in gap else " "
                insert_at = last_end + comma + 1
                replacement = text[start:insert_at] + "\n" + indent + "sort_keys=True," + text[insert_at:end]
            else:
                tail = text[closing:end] if rest.strip() == "," else rest + text[closing:end]
                replacement = text[start:last_end] + ", sort_keys=True" + tail
        fix = Fix(description, self.m.span(call), replacement)
        self.m.fixes[id(call)] = fix
        return fix

    # ---- untrusted content ---------------------------------------------------------------------------

    def tool_result_message(self, node: ast.Dict, scope: Scope) -> None:
        """Record the name a ``{"role": "tool", "content": result}`` message (or an Anthropic
        ``tool_result`` block, a Responses ``function_call_output`` item) sends: it holds what a
        tool returned, wherever else the function uses it."""
        entries: dict[str, ast.expr] = {}
        for key, value in zip(node.keys, node.values):
            name = string_value(key)
            if name is not None:
                entries[name] = value
        kind = string_value(entries.get("role")) or string_value(entries.get("type"))
        field = {"tool": "content", "function": "content", "tool_result": "content",
                 "function_call_output": "output"}.get(kind or "")
        sent = entries.get(field) if field else None
        if isinstance(sent, ast.Call) and sent.args and not isinstance(sent.args[0], ast.Starred):
            sent = sent.args[0]  # json.dumps(result), str(result)
        if isinstance(sent, ast.Name) and sent.id not in NOT_VARIABLES:
            scope.tool_results.setdefault(sent.id, self.m.span(sent))

    def untrusted(self, node: ast.AST, env: Env) -> Source | None:
        """Where the value of ``node`` carries third-party content: a ``Source`` at the
        expression that produced it (``resp.text`` where ``resp = requests.get(url)``), or None."""
        if env.depth > MAX_DEPTH or not self.m.step():
            return None
        if isinstance(node, ast.Await):
            return self.untrusted(node.value, env)
        if isinstance(node, (ast.Attribute, ast.Subscript)):
            dotted = self.m.dotted(node.value if isinstance(node, ast.Subscript) else node) or ""
            if re.match(r"(?:\w+\.)*request\.(?:files|FILES)\b", dotted):
                return Source(SourceKind.UNTRUSTED, "request.files[...]", self.m.span(node))
            if isinstance(node, ast.Attribute):
                carrier = self.carrier(node.value, env)
                if carrier is not None:
                    kind, what = carrier
                    if kind == "email" or (kind == "http" and node.attr in HTTP_CONTENT_ATTRS):
                        return Source(SourceKind.UNTRUSTED, f"{what}.{node.attr}", self.m.span(node))
                    return None  # resp.status_code, f.name: about the content, not the content
                found = self.bound_untrusted(node, env)  # self.page = ...
                if found is not None:
                    return found
            return self.untrusted(node.value, env)
        if isinstance(node, ast.Call):
            return self.untrusted_call(node, env)
        if isinstance(node, ast.Name):
            found = self.bound_untrusted(node, env)
            if found is not None:
                return found
            scope: Scope | None = env.scope
            while scope is not None:
                if node.id in scope.tool_results:
                    return Source(SourceKind.UNTRUSTED, "a tool result", scope.tool_results[node.id])
                if node.id in scope.assigns or node.id in scope.params:
                    break  # a local of this scope, not the name sent from an outer one
                scope = scope.parent
            return None
        for child in value_parts(node):
            found = self.untrusted(child, env)
            if found is not None:
                return found
        return None

    def bound_untrusted(self, node: ast.Name | ast.Attribute, env: Env) -> Source | None:
        """The untrusted content of the value a name holds, or of what was added to it."""
        binding = self.scopes.resolve(node, env, foreign=True)
        if binding is None:
            return None
        if binding.owner is not None:
            if not self.m.enter(binding.value):
                return None
            try:
                found = binding.owner.sources.untrusted(binding.value, binding.env)
            finally:
                self.m.leave(binding.value)
            return None if found is None else self.m.adopt_source(found, self.m.span(node))
        key = ("untrusted", *self.m.binding_key(binding))
        if key in self.m.source_memo:
            return self.m.source_memo[key]
        if not self.m.enter(binding.value):
            return None
        try:
            found = self.untrusted(binding.value, binding.env)
            for extra in binding.extras:  # a list or text that untrusted content was added to
                if found is None and extra.value is not None and extra.kind in ADDS:
                    found = self.untrusted(extra.value, binding.env)
        finally:
            self.m.leave(binding.value)
        self.m.source_memo[key] = found
        return found

    def untrusted_call(self, call: ast.Call, env: Env) -> Source | None:
        func = call.func
        qualified = self.m.qualified(func) or ""
        last = qualified.rsplit(".", 1)[-1]
        if qualified in MEASURES or self.sinks.is_sink(call, env):
            return None  # a measure; or the model's own answer, whatever it was shown
        if isinstance(func, ast.Subscript):
            holder = self.m.dotted(func.value) or ""
            if TOOL_HOLDERS.search(holder.rsplit(".", 1)[-1]):
                return Source(SourceKind.UNTRUSTED, f"a tool result ({holder}[...](...))", self.m.span(call))
        if isinstance(func, ast.Attribute):
            method = func.attr
            if method in MEASURING_METHODS:
                return None
            receiver = func.value
            carrier = self.carrier(receiver, env)
            if carrier is not None:
                kind, what = carrier
                if ((kind == "http" and method in HTTP_CONTENT_METHODS)
                        or (kind in ("file", "upload") and method in FILE_CONTENT_METHODS)
                        or kind == "email"):
                    return Source(SourceKind.UNTRUSTED, f"{what}.{method}()", self.m.span(call))
            if method in PATH_READERS and not self.static_path(receiver, env):
                return Source(SourceKind.UNTRUSTED, f"Path(...).{method}()", self.m.span(call))
            if method in EMAIL_CONTENT_METHODS:
                return Source(SourceKind.UNTRUSTED, f"an e-mail ({method}())", self.m.span(call))
            holder = receiver.value if isinstance(receiver, ast.Subscript) else receiver  # tools[name].invoke()
            receiver_name = (self.m.dotted(holder) or "").rsplit(".", 1)[-1].lower()
            if TOOL_RUNNERS.search(method) and ("_" in method or "tool" in receiver_name):
                name = self.m.short(func) if holder is receiver else f"{self.m.dotted(holder)}[...].{method}"
                return Source(SourceKind.UNTRUSTED, f"a tool result ({name}(...))", self.m.span(call))
            found = self.untrusted(receiver, env)
            if found is not None:
                return found
        elif last and "_" in last and TOOL_RUNNERS.search(last):
            return Source(SourceKind.UNTRUSTED, f"a tool result ({last}(...))", self.m.span(call))
        if qualified in EMAIL_PARSERS:
            return Source(SourceKind.UNTRUSTED, f"{qualified}(...)", self.m.span(call))
        target = self.scopes.function_for(call, env, foreign=True)
        if target is not None:  # a function the code shows: what any of its returns gives, with these arguments
            if not self.m.enter(target.fn):
                return None
            reader = target.owner.sources if target.owner is not None else self
            try:
                found = next((s for s in (reader.untrusted(v, target.env) for v in target.returns) if s is not None),
                             None)
            finally:
                self.m.leave(target.fn)
            if found is None:
                return None
            if target.owner is not None:
                found = self.m.adopt_source(found, self.m.span(call))
            step = Evidence(EvidenceKind.FLOW, f"returned by `{self.m.short(call.func)}()`", self.m.span(call))
            return replace(found, flow=(*found.flow, step))
        for arg in arguments(call):  # a function of untrusted content: a summary, a translation, a cleaned copy
            found = self.untrusted(arg, env)
            if found is not None:
                return found
        return None

    def carrier(self, node: ast.expr, env: Env) -> tuple[str, str] | None:
        """``(kind, what)`` when ``node`` is an object holding third-party content: an HTTP
        response (``http``), a file opened from a path that is not the repository's own
        (``file``), an upload (``upload``) or a parsed e-mail (``email``)."""
        if env.depth > MAX_DEPTH or not self.m.step():
            return None
        if isinstance(node, ast.Await):
            return self.carrier(node.value, env)
        if isinstance(node, ast.Call):
            qualified = self.m.qualified(node.func) or ""
            if qualified in HTTP_CALLS:
                return "http", ("urlopen" if "urlopen" in qualified else qualified) + "(...)"
            if qualified in FILE_OPENERS:
                given = arguments(node)
                if given and not self.static_path(given[0], env):
                    return "file", "open(...)"
                return None
            if qualified in EMAIL_PARSERS:
                return "email", f"{qualified}(...)"
            if isinstance(node.func, ast.Attribute):
                method = node.func.attr
                if method in HTTP_VERBS:
                    client = self.http_client(node.func.value, env)
                    if client is not None:
                        return "http", f"{client}.{method}(...)"
                if method in EMAIL_PARSER_METHODS and "Parser" in self.m.code(node.func.value):
                    return "email", f"{self.m.short(node.func)}(...)"
                if method == "open" and not self.static_path(node.func.value, env):
                    return "file", "Path(...).open()"
            return None
        if isinstance(node, ast.Attribute) and node.attr in ("file", "stream"):
            inner = self.carrier(node.value, env)  # UploadFile.file, FileStorage.stream
            return ("upload", inner[1] + "." + node.attr) if inner and inner[0] == "upload" else None
        if isinstance(node, ast.Name):
            annotation = self.scopes.param_annotation(node.id, env)
            if annotation is not None and "UploadFile" in annotation:
                return "upload", "UploadFile"
        if isinstance(node, (ast.Name, ast.Attribute)):
            binding = self.scopes.resolve(node, env)
            if binding is not None and self.m.enter(binding.value):
                try:
                    return self.carrier(binding.value, binding.env)
                finally:
                    self.m.leave(binding.value)
        return None

    def http_client(self, node: ast.expr, env: Env) -> str | None:
        """``httpx.AsyncClient()`` when ``node`` is (or names) an HTTP client object."""
        if env.depth > MAX_DEPTH or not self.m.step():
            return None
        if isinstance(node, ast.Call):
            qualified = self.m.qualified(node.func) or ""
            return f"{qualified}()" if qualified in HTTP_CLIENTS else None
        if isinstance(node, (ast.Name, ast.Attribute)):
            qualified = self.m.qualified(node) or ""
            if qualified in ("requests", "httpx", "urllib.request", "urllib3"):
                return qualified
            binding = self.scopes.resolve(node, env)
            if binding is not None and self.m.enter(binding.value):
                try:
                    return self.http_client(binding.value, binding.env)
                finally:
                    self.m.leave(binding.value)
        return None

    def static_path(self, node: ast.expr, env: Env) -> bool:
        """Whether a path is the repository's own: built only from literals, ``__file__``,
        configuration (``os.environ``) and names that say they hold a prompt or template. A
        path from a parameter or a loop over a folder is content someone else provides."""
        if env.depth > MAX_DEPTH or not self.m.step():
            return False
        if isinstance(node, ast.Constant):
            return isinstance(node.value, (str, int)) and not isinstance(node.value, bool)
        if isinstance(node, ast.JoinedStr):
            return all(self.static_path(p.value, env) for p in node.values if isinstance(p, ast.FormattedValue))
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Div, ast.Add)):
            # PROMPTS / f"{name}.md": a file in the repository's own folder, whatever its name.
            return self.static_path(node.left, env) and (self.static_path(node.right, env)
                                                         or not UPLOAD_WORDS.search(self.m.code(node)))
        if isinstance(node, ast.Subscript):
            return (self.m.qualified(node.value) or "") == "os.environ"
        if isinstance(node, ast.Call):
            func = node.func
            qualified = self.m.qualified(func) or ""
            args = arguments(node)
            if qualified in PATH_BUILDERS:
                if qualified == "os.path.join" and args and self.static_path(args[0], env):
                    return all(self.static_path(a, env) for a in args) or not UPLOAD_WORDS.search(self.m.code(node))
                return all(self.static_path(a, env) for a in args)
            if isinstance(func, ast.Attribute) and func.attr in PATH_METHODS_STATIC:
                return self.static_path(func.value, env) and (all(self.static_path(a, env) for a in args)
                                                              or not UPLOAD_WORDS.search(self.m.code(node)))
            return False
        if isinstance(node, (ast.Name, ast.Attribute)):
            dotted = self.m.dotted(node) or ""
            head = dotted.split(".")[0]
            if dotted == "__file__" or (head in self.m.imports and head not in self.m.from_imports):
                return True  # settings.PROMPT_DIR: a module's configuration
            if isinstance(node, ast.Attribute) and node.attr in ("parent", "parents", "stem", "name"):
                return self.static_path(node.value, env)
            if any(fnmatchcase(dotted.rsplit(".", 1)[-1].lower(), p) for p in CONFIG_NAMES):
                return True
            binding = self.scopes.resolve(node, env)
            if binding is not None and not binding.extras and self.m.enter(binding.value):
                try:
                    return self.static_path(binding.value, binding.env)
                finally:
                    self.m.leave(binding.value)
        return False

    # ---- truncation ----------------------------------------------------------------------------------

    def truncation(self, node: ast.AST, env: Env) -> Source | None:
        """``text[:4000]``: a string cut to a fixed length (not a list slice, a short prefix, or
        a cut followed by a marker in the same expression)."""
        if isinstance(node, ast.Call) and (self.m.qualified(node.func) or "") == "textwrap.shorten":
            placeholder = next((k.value for k in node.keywords if k.arg == "placeholder"), None)
            if placeholder is not None and self.flow.literal_str(placeholder, env) == "":
                return Source(SourceKind.TRUNCATION, self.m.code(node), self.m.span(node))
            return None
        if not isinstance(node, ast.Subscript) or id(node) in self.m.marked:
            return None
        cut = node.slice
        if not isinstance(cut, ast.Slice) or cut.upper is None or cut.step is not None:
            return None
        if cut.lower is not None and not (isinstance(cut.lower, ast.Constant) and cut.lower.value == 0):
            return None
        upper = cut.upper
        if isinstance(upper, ast.UnaryOp) or (isinstance(upper, ast.Call)
                                              and (self.m.qualified(upper.func) or "") == "len"):
            return None  # text[:-1], text[:len(prefix)]
        ok, value = self.flow.literal(upper, env)
        if ok and (not isinstance(value, int) or isinstance(value, bool) or value < MIN_CUT):
            return None
        if self.flow.is_list(node.value, env) is not False:
            return None
        # What is cut, where readable: constraints in it may be what the cut drops (CTX301).
        content = tuple(Segment(Role.SYSTEM, p.span, p.text) for p in self.strings.text(node.value, env) or ()
                        if p.slot is None)
        return Source(SourceKind.TRUNCATION, self.m.code(node), self.m.span(node), content=content,
                      kept=value if ok and isinstance(value, int) else None)
