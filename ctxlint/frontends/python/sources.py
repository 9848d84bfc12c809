"""Where a value's content comes from: third-party content (HTTP bodies, files from paths that
are not the repository's own, uploads, e-mails, tool results), text cut to a length, and
serialisation without sorted keys (with the fix that sorts it)."""

from __future__ import annotations

import re
from fnmatch import fnmatchcase

import libcst as cst

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
from ctxlint.model import Fix, Role, Segment, Source, SourceKind


class Sources(Component):
    def serialization_source(self, call, qualified: str, env: Env) -> Source | None:
        keyword = next((a for a in call.args if a.keyword is not None and a.keyword.value == "sort_keys"), None)
        if keyword is not None:
            if not (isinstance(keyword.value, cst.Name) and keyword.value.value == "False"):
                return None  # sort_keys=True, or a value we cannot know
        elif qualified in YAML_DUMPERS:
            return None  # yaml.dump sorts keys unless told not to
        elif any(a.star == "**" for a in call.args):
            return None  # the options may hold sort_keys
        positional = [a.value for a in call.args if not a.keyword and not a.star]
        if not positional or not self.may_be_mapping(positional[0], env):
            return None
        return Source(SourceKind.UNSORTED_SERIALIZATION, qualified, self.m.span(call), self.sort_keys_fix(call, keyword))

    def may_be_mapping(self, node, env: Env) -> bool:
        """False for values that certainly have no keys (text, numbers, lists of scalars)."""
        if env.depth > MAX_DEPTH:
            return True
        if isinstance(node, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString, cst.Integer, cst.Float)):
            return False
        if isinstance(node, (cst.List, cst.Tuple, cst.Set)):
            return any(isinstance(e, cst.StarredElement) or self.may_be_mapping(e.value, env) for e in node.elements)
        if isinstance(node, cst.Call):
            qualified = self.m.qualified(node.func) or ""
            if qualified in ("str", "int", "float", "len", "repr", "bool", "sorted"):
                return False
            if isinstance(node.func, cst.Attribute) and node.func.attr.value in (
                "strip", "lower", "upper", "format", "join", "isoformat", "strftime", "read", "read_text",
            ):
                return False
            return True
        if isinstance(node, cst.Name):
            if node.value in ("True", "False", "None"):
                return False
            annotation = self.scopes.param_annotation(node.value, env)
            if annotation is not None and annotation.replace(" ", "") in (
                "str", "int", "float", "bool", "list[str]", "List[str]", "str|None", "Optional[str]",
            ):
                return False
        if isinstance(node, (cst.Name, cst.Attribute)):
            binding = self.scopes.resolve(node, env)
            if binding is not None and not binding.extras and self.m.enter(binding.value):
                try:
                    return self.may_be_mapping(binding.value, binding.env)
                finally:
                    self.m.leave(binding.value)
        return True

    def sort_keys_fix(self, call, keyword) -> Fix:
        """Add ``sort_keys=True`` (or turn ``sort_keys=False`` into True), rendered by libcst, as a
        replacement of exactly the call's span."""
        if id(call) in self.m.fixes:
            return self.m.fixes[id(call)]
        true = cst.Name("True")
        args = list(call.args)
        if keyword is not None:
            args = [a.with_changes(value=true) if a is keyword else a for a in args]
            description = "set sort_keys=True"
        else:
            description = "add sort_keys=True"
            new = cst.Arg(value=true, keyword=cst.Name("sort_keys"),
                          equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                                whitespace_after=cst.SimpleWhitespace("")))
            last = args[-1]
            comma = last.comma
            if isinstance(comma, cst.Comma) and isinstance(comma.whitespace_after, cst.ParenthesizedWhitespace):
                # One argument per line with a trailing comma: add a line in the same style.
                previous = args[-2].comma if len(args) > 1 else None
                before = previous.whitespace_after if isinstance(previous, cst.Comma) else call.whitespace_before_args
                args[-1] = last.with_changes(comma=cst.Comma(whitespace_after=before))
                args.append(new.with_changes(comma=comma))
            else:
                args[-1] = last.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
                args.append(new)
        fix = Fix(description, self.m.span(call), self.replacement(call, call.with_changes(args=args)))
        self.m.fixes[id(call)] = fix
        return fix

    def replacement(self, old, new) -> str:
        """The exact text that replaces ``old``'s span once ``old`` becomes ``new``.

        ``code_for_node`` renders continuation lines without the indentation of the enclosing
        block, so the node is rendered with that indentation (the leading whitespace of its first
        line), after checking that this reproduces the source of ``old`` exactly. Only when it
        does not is the whole module rendered and the changed range cut out: that costs a
        render of the module per fix.
        """
        from libcst._nodes.internal import CodegenState

        source = self.module_text()
        span = self.m.span(old)
        start = self.m.line_starts[span.line - 1] + span.column - 1
        end = self.m.line_starts[span.end_line - 1] + span.end_column - 1
        line_start = self.m.line_starts[span.line - 1]
        indent = source[line_start : line_start + len(source[line_start:]) - len(source[line_start:].lstrip(" \t"))]

        def render(node) -> str:
            state = CodegenState(default_indent=self.m.module.default_indent,
                                 default_newline=self.m.module.default_newline, indent_tokens=[indent])
            node._codegen(state)
            return "".join(state.tokens)

        if render(old) == source[start:end]:
            return render(new)
        after = self.m.module.deep_replace(old, new).code
        return after[start : len(after) - (len(source) - end)]

    def module_text(self) -> str:
        if self.m.source is None:
            self.m.source = self.m.module.code
            self.m.line_starts = [0] + [i + 1 for i, c in enumerate(self.m.source) if c == "\n"]
        return self.m.source

    def tool_result_message(self, node, scope: Scope) -> None:
        """Record the name a ``{"role": "tool", "content": result}`` message (or an Anthropic
        ``tool_result`` block, a Responses ``function_call_output`` item) sends: it holds what a
        tool returned, wherever else the function uses it."""
        entries = {}
        for element in node.elements:
            if isinstance(element, cst.DictElement) and isinstance(element.key, cst.SimpleString):
                entries[string_value(element.key)] = element.value
        kind = entries.get("role") or entries.get("type")
        kind = string_value(kind) if isinstance(kind, cst.SimpleString) else None
        key = {"tool": "content", "function": "content", "tool_result": "content",
               "function_call_output": "output"}.get(kind or "")
        value = entries.get(key) if key else None
        if isinstance(value, cst.Call) and len(value.args) >= 1 and not value.args[0].keyword:
            value = value.args[0].value  # json.dumps(result), str(result)
        if isinstance(value, cst.Name) and value.value not in NOT_VARIABLES:
            scope.tool_results.setdefault(value.value, self.m.span(value))

    def untrusted(self, node, env: Env) -> Source | None:
        """Where the value of ``node`` carries third-party content: a ``Source`` at the
        expression that produced it (``resp.text`` where ``resp = requests.get(url)``), or None."""
        if env.depth > MAX_DEPTH:
            return None
        if isinstance(node, cst.Await):
            return self.untrusted(node.expression, env)
        if isinstance(node, (cst.Attribute, cst.Subscript)):
            dotted = self.m.dotted(node.value if isinstance(node, cst.Subscript) else node) or ""
            if re.match(r"(?:\w+\.)*request\.(?:files|FILES)\b", dotted):
                return Source(SourceKind.UNTRUSTED, "request.files[...]", self.m.span(node))
            if isinstance(node, cst.Attribute):
                carrier = self.carrier(node.value, env)
                if carrier is not None:
                    kind, what = carrier
                    if kind == "email" or (kind == "http" and node.attr.value in HTTP_CONTENT_ATTRS):
                        return Source(SourceKind.UNTRUSTED, f"{what}.{node.attr.value}", self.m.span(node))
                    return None  # resp.status_code, f.name: about the content, not the content
                binding = self.scopes.resolve(node, env)  # self.page = ...
                if binding is not None and self.m.enter(binding.value):
                    try:
                        found = self.untrusted(binding.value, binding.env)
                    finally:
                        self.m.leave(binding.value)
                    if found is not None:
                        return found
            return self.untrusted(node.value, env)
        if isinstance(node, cst.Call):
            return self.untrusted_call(node, env)
        if isinstance(node, cst.Name):
            binding = self.scopes.resolve(node, env)
            if binding is not None and self.m.enter(binding.value):
                try:
                    found = self.untrusted(binding.value, binding.env)
                    for extra in binding.extras:  # a list or text that untrusted content was added to
                        if found is None and extra.value is not None and extra.kind in ADDS:
                            found = self.untrusted(extra.value, binding.env)
                finally:
                    self.m.leave(binding.value)
                if found is not None:
                    return found
            scope = env.scope
            while scope is not None:
                if node.value in scope.tool_results:
                    return Source(SourceKind.UNTRUSTED, "a tool result", scope.tool_results[node.value])
                if node.value in scope.assigns or node.value in scope.params:
                    break  # a local of this scope, not the name sent from an outer one
                scope = scope.parent
            return None
        for child in value_parts(node):
            found = self.untrusted(child, env)
            if found is not None:
                return found
        return None

    def untrusted_call(self, call, env: Env) -> Source | None:
        func = call.func
        qualified = self.m.qualified(func) or ""
        last = qualified.rsplit(".", 1)[-1]
        if qualified in MEASURES or self.sinks.api_of(call) is not None:
            return None  # a measure; or the model's own answer, whatever it was shown
        if isinstance(func, cst.Subscript):
            holder = self.m.dotted(func.value) or ""
            if TOOL_HOLDERS.search(holder.rsplit(".", 1)[-1]):
                return Source(SourceKind.UNTRUSTED, f"a tool result ({holder}[...](...))", self.m.span(call))
        if isinstance(func, cst.Attribute):
            method = func.attr.value
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
            holder = receiver.value if isinstance(receiver, cst.Subscript) else receiver  # tools[name].invoke()
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
        target = self.scopes.function_for(call, env)
        if target is not None:  # the module's own function: what it returns, given these arguments
            if not self.m.enter(target[0]):
                return None
            try:
                return self.untrusted(target[1], target[2])
            finally:
                self.m.leave(target[0])
        for arg in call.args:  # a function of untrusted content: a summary, a translation, a cleaned copy
            found = self.untrusted(arg.value, env)
            if found is not None:
                return found
        return None

    def carrier(self, node, env: Env) -> tuple[str, str] | None:
        """``(kind, what)`` when ``node`` is an object holding third-party content: an HTTP
        response (``http``), a file opened from a path that is not the repository's own
        (``file``), an upload (``upload``) or a parsed e-mail (``email``)."""
        if env.depth > MAX_DEPTH:
            return None
        if isinstance(node, cst.Await):
            return self.carrier(node.expression, env)
        if isinstance(node, cst.Call):
            qualified = self.m.qualified(node.func) or ""
            if qualified in HTTP_CALLS:
                return "http", ("urlopen" if "urlopen" in qualified else qualified) + "(...)"
            if qualified in FILE_OPENERS:
                path = node.args[0].value if node.args else None
                if path is not None and not self.static_path(path, env):
                    return "file", "open(...)"
                return None
            if qualified in EMAIL_PARSERS:
                return "email", f"{qualified}(...)"
            if isinstance(node.func, cst.Attribute):
                method = node.func.attr.value
                if method in HTTP_VERBS:
                    client = self.http_client(node.func.value, env)
                    if client is not None:
                        return "http", f"{client}.{method}(...)"
                if method in EMAIL_PARSER_METHODS and "Parser" in self.m.code(node.func.value):
                    return "email", f"{self.m.short(node.func)}(...)"
                if method == "open" and not self.static_path(node.func.value, env):
                    return "file", "Path(...).open()"
            return None
        if isinstance(node, cst.Attribute) and node.attr.value in ("file", "stream"):
            inner = self.carrier(node.value, env)  # UploadFile.file, FileStorage.stream
            return ("upload", inner[1] + "." + node.attr.value) if inner and inner[0] == "upload" else None
        if isinstance(node, cst.Name):
            annotation = self.scopes.param_annotation(node.value, env)
            if annotation is not None and "UploadFile" in annotation:
                return "upload", "UploadFile"
        if isinstance(node, (cst.Name, cst.Attribute)):
            binding = self.scopes.resolve(node, env)
            if binding is not None and self.m.enter(binding.value):
                try:
                    return self.carrier(binding.value, binding.env)
                finally:
                    self.m.leave(binding.value)
        return None

    def http_client(self, node, env: Env) -> str | None:
        """``httpx.AsyncClient()`` when ``node`` is (or names) an HTTP client object."""
        if env.depth > MAX_DEPTH:
            return None
        if isinstance(node, cst.Call):
            qualified = self.m.qualified(node.func) or ""
            return f"{qualified}()" if qualified in HTTP_CLIENTS else None
        if isinstance(node, (cst.Name, cst.Attribute)):
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

    def static_path(self, node, env: Env) -> bool:
        """Whether a path is the repository's own: built only from literals, ``__file__``,
        configuration (``os.environ``) and names that say they hold a prompt or template. A
        path from a parameter or a loop over a folder is content someone else provides."""
        if env.depth > MAX_DEPTH:
            return False
        if isinstance(node, (cst.SimpleString, cst.ConcatenatedString, cst.Integer)):
            return True
        if isinstance(node, cst.FormattedString):
            return all(self.static_path(p.expression, env) for p in node.parts
                       if isinstance(p, cst.FormattedStringExpression))
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, (cst.Divide, cst.Add)):
            # PROMPTS / f"{name}.md": a file in the repository's own folder, whatever its name.
            return self.static_path(node.left, env) and (self.static_path(node.right, env)
                                                         or not UPLOAD_WORDS.search(self.m.code(node)))
        if isinstance(node, cst.Subscript):
            return (self.m.qualified(node.value) or "") == "os.environ"
        if isinstance(node, cst.Call):
            func = node.func
            qualified = self.m.qualified(func) or ""
            args = [a.value for a in node.args]
            if qualified in PATH_BUILDERS:
                if qualified == "os.path.join" and args and self.static_path(args[0], env):
                    return all(self.static_path(a, env) for a in args) or not UPLOAD_WORDS.search(self.m.code(node))
                return all(self.static_path(a, env) for a in args)
            if isinstance(func, cst.Attribute) and func.attr.value in PATH_METHODS_STATIC:
                return self.static_path(func.value, env) and (all(self.static_path(a, env) for a in args)
                                                              or not UPLOAD_WORDS.search(self.m.code(node)))
            return False
        if isinstance(node, (cst.Name, cst.Attribute)):
            dotted = self.m.dotted(node) or ""
            if dotted == "__file__" or (dotted.split(".")[0] in self.m.imports and dotted.split(".")[0]
                                        not in self.m.from_imports):
                return True  # settings.PROMPT_DIR: a module's configuration
            if isinstance(node, cst.Attribute) and node.attr.value in ("parent", "parents", "stem", "name"):
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

    def truncation(self, node, env: Env) -> Source | None:
        """``text[:4000]``: a string cut to a fixed length (not a list slice, a short prefix, or
        a cut followed by a marker in the same expression)."""
        if isinstance(node, cst.Call) and (self.m.qualified(node.func) or "") == "textwrap.shorten":
            placeholder = next((a.value for a in node.args if a.keyword is not None
                                and a.keyword.value == "placeholder"), None)
            if placeholder is not None and self.flow.literal_str(placeholder, env) == "":
                return Source(SourceKind.TRUNCATION, self.m.code(node), self.m.span(node))
            return None
        if not isinstance(node, cst.Subscript) or len(node.slice) != 1 or id(node) in self.m.marked:
            return None
        cut = node.slice[0].slice
        if not isinstance(cut, cst.Slice) or cut.upper is None or cut.step is not None:
            return None
        if cut.lower is not None and not (isinstance(cut.lower, cst.Integer) and cut.lower.value == "0"):
            return None
        upper = cut.upper
        if isinstance(upper, cst.UnaryOperation) or (isinstance(upper, cst.Call)
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
                      kept=value if ok else None)
