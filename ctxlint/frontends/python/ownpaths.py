"""Whether a path names a file of the repository's own (a prompt it ships) or content someone
else provides: built only from literals, ``__file__``, configuration and names that say they hold
a prompt or template, or ending in a file name the code writes whole (``workspace / "MEMORY.md"``:
the program's own state, notes or settings); or from a parameter, a loop over a folder, an upload. Also what else is the
user's own text, wherever it is read from: a file they edit first, the shell history they typed."""

from __future__ import annotations

import ast
import re
from dataclasses import replace
from fnmatch import fnmatchcase

from ctxlint.frameworks import SourceKindSpec
from ctxlint.frontends.code.words import CONFIG_NAMES, UPLOAD_WORDS
from ctxlint.frontends.python.knowledge import FIXED_COMMAND, MAX_DEPTH, PATH_BUILDERS, PATH_METHODS_STATIC
from ctxlint.frontends.python.nodes import arguments, function_of, loop_binding
from ctxlint.frontends.python.scopes import Scopes
from ctxlint.frontends.python.unit import Unit
from ctxlint.frontends.python.values import Env


def own_path(m: Unit, scopes: Scopes, node: ast.expr, env: Env) -> bool:
    """Whether a path is the repository's own: built only from literals, ``__file__``,
    configuration (``os.environ``) and names that say they hold a prompt or template. A
    path from a parameter or a loop over a folder is content someone else provides."""
    if env.depth > MAX_DEPTH or not m.step():
        return False
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (str, int)) and not isinstance(node.value, bool)
    if isinstance(node, ast.BoolOp):  # `args.prompt_file or os.environ.get("PROMPT")`
        return all(own_path(m, scopes, v, env) for v in node.values)
    if _in_prompt_folder(node) and not UPLOAD_WORDS.search(m.code(node)):
        return True  # `folder + "/prompts/" + name`: a template the project ships, wherever it is installed
    if isinstance(node, ast.JoinedStr):
        return all(own_path(m, scopes, p.value, env) for p in node.values if isinstance(p, ast.FormattedValue))
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Div, ast.Add)):
        if _file_name(m, scopes, node.right, env) and not UPLOAD_WORDS.search(m.code(node)):
            return True  # `workspace / "MEMORY.md"`: a file the program names, wherever its folder is
        # PROMPTS / f"{name}.md": a file in the repository's own folder, whatever its name.
        return own_path(m, scopes, node.left, env) and (own_path(m, scopes, node.right, env)
                                                     or not UPLOAD_WORDS.search(m.code(node)))
    if isinstance(node, ast.Subscript):
        return (m.qualified(node.value) or "") == "os.environ"
    if isinstance(node, ast.Call):
        func = node.func
        qualified = m.qualified(func) or ""
        args = arguments(node)
        if _configured(func, args):
            return True  # `cfg.get("ROLE_STORAGE_PATH")`: a folder the operator configures
        if qualified in ("cast", "typing.cast") and len(args) == 2:
            return own_path(m, scopes, args[1], env)  # `cast("Path", packaged)`: the value, retyped
        if qualified in PATH_BUILDERS:
            if qualified == "os.path.join" and args and _file_name(m, scopes, args[-1], env) \
                    and not UPLOAD_WORDS.search(m.code(node)):
                return True  # `os.path.join(workspace_dir, "knowledge", "index.md")`: a file the program names
            if qualified == "os.path.join" and args and own_path(m, scopes, args[0], env):
                return all(own_path(m, scopes, a, env) for a in args) or not UPLOAD_WORDS.search(m.code(node))
            return all(own_path(m, scopes, a, env) for a in args)
        if isinstance(func, ast.Attribute) and func.attr in PATH_METHODS_STATIC:
            return own_path(m, scopes, func.value, env) and (all(own_path(m, scopes, a, env) for a in args)
                                                          or not UPLOAD_WORDS.search(m.code(node)))
        return _returns_own_path(m, node, env)
    if isinstance(node, (ast.Name, ast.Attribute)):
        dotted = m.dotted(node) or ""
        head = dotted.split(".")[0]
        if dotted == "__file__" or (head in m.imports and head not in m.from_imports):
            return True  # settings.PROMPT_DIR: a module's configuration
        if isinstance(node, ast.Attribute) and node.attr in ("parent", "parents", "stem", "name"):
            return own_path(m, scopes, node.value, env)
        if any(fnmatchcase(dotted.rsplit(".", 1)[-1].lower(), p) for p in CONFIG_NAMES):
            return True
        if isinstance(node, ast.Name) and _name_required(m, scopes, node, env):
            return True  # `if path.name != SKILL_FILE: return None` first: only a file the program names
        binding = scopes.resolve(node, env)
        if binding is not None and not binding.extras:
            return m.follow(binding.value, lambda value, value_env: own_path(m, scopes, value, value_env),
                            binding.value, binding.env, otherwise=False)
    return False


def _returns_own_path(m: Unit, call: ast.Call, env: Env) -> bool:
    """``self.get_memory_file(user_id)``: a function of the project every return of which is a
    path of the program's own (``user_dir / "MEMORY.md"``), read where it is written (a summary
    applied at the call)."""
    called = m.analyzer.callees.function_for(call, env, foreign=True)
    if called is None:
        return False
    owner = called.owner
    unit, scopes = (owner.unit, owner.scopes) if owner is not None else (m, m.analyzer.scopes)
    return all(own_path(unit, scopes, value, called.env) for value in called.returns)


# A file's name written whole, with its extension (`"MEMORY.md"`, `"knowledge/index.md"`).
_FILE_NAME = re.compile(r"^(?:[\w.-]+/)*[\w-][\w.-]*\.[A-Za-z][A-Za-z0-9]{0,4}$")


def _file_name(m: Unit, scopes: Scopes, node: ast.expr, env: Env, depth: int = 0) -> bool:
    """Whether a path's last piece is a literal file name: the program reads a file it names
    itself (its own state, notes, settings or code template, in whatever folder it keeps them),
    not whatever file a user or a listing hands it. Also a name given one, or an item of a loop
    over a list of them (``for filename in [AGENT_FILE, MEMORY_FILE]``)."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str) and _FILE_NAME.match(node.value) is not None
    if isinstance(node, ast.JoinedStr):  # `f"{date_str}.md"`: a note the program files under the day
        written = "".join(str(p.value) if isinstance(p, ast.Constant) else "x" for p in node.values)
        fields = [p.value for p in node.values if isinstance(p, ast.FormattedValue)]
        return _FILE_NAME.match(written) is not None and bool(fields) and all(
            _dated(scopes, field, env) for field in fields)
    if not isinstance(node, ast.Name) or depth > 2:
        return False
    loop = loop_binding(m.parents, node)
    if loop is not None:
        listed, listed_env = scopes.deref(loop.iter, env)
        if listed is loop.iter or (isinstance(listed, ast.Constant) and listed.value is None):
            # `files = files or [AGENT_FILE, ...]` inside the function, read from a caller that
            # leaves the parameter to its default: the lists the function gives it itself
            lists = _lists_given(m, loop)
            return bool(lists) and all(_file_name(m, scopes, item, env, depth + 1)
                                       for listed in lists for item in listed.elts)
        return isinstance(listed, (ast.List, ast.Tuple)) and bool(listed.elts) and all(
            _file_name(m, scopes, item, listed_env, depth + 1) for item in listed.elts)
    value, value_env = scopes.deref(node, env)
    if value is node:  # `from .types import SKILL_FILE`: a constant another module writes
        found = m.foreign(m.imports[node.id], m.import_levels.get(node.id, 0)) if node.id in m.from_imports else None
        return found is not None and isinstance(found[1], ast.Constant) and _file_name(m, scopes, found[1], env)
    return _file_name(m, scopes, value, value_env, depth + 1)


# Methods that write a date or a time as text.
_DATE_TEXT = ("strftime", "isoformat")


def _dated(scopes: Scopes, node: ast.expr, env: Env) -> bool:
    """Whether ``node`` is a date the program writes as text (``day.strftime("%Y-%m-%d")``, or a
    name given one): nothing a user or a listing hands it."""
    value, _ = scopes.deref(node, env) if isinstance(node, ast.Name) else (node, env)
    return isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in _DATE_TEXT


def _name_required(m: Unit, scopes: Scopes, node: ast.Name, env: Env) -> bool:
    """Whether the function, before it reads the path ``node``, leaves unless the path's name is
    one the code writes whole (``if not path.exists() or path.name != SKILL_FILE: return None``):
    whatever folder it is given, it reads only the file it names."""
    fn = env.scope.node
    if env.scope.kind != "function" or not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    for statement in fn.body:
        if statement.lineno >= node.lineno:
            return False
        if not (isinstance(statement, ast.If) and isinstance(statement.body[-1], (ast.Return, ast.Raise))):
            continue
        test = statement.test
        for part in test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or) else [test]:
            if isinstance(part, ast.Compare) and len(part.ops) == 1 and isinstance(part.ops[0], ast.NotEq) \
                    and isinstance(part.left, ast.Attribute) and part.left.attr == "name" \
                    and isinstance(part.left.value, ast.Name) and part.left.value.id == node.id \
                    and _file_name(m, scopes, part.comparators[0], env):
                return True
    return False


def _lists_given(m: Unit, loop: ast.For | ast.AsyncFor) -> list[ast.List | ast.Tuple]:
    """The literal lists the loop's function gives the name the loop goes over, when that is all
    it gives it (``if files is None: files = [AGENT_FILE, MEMORY_FILE]``); empty otherwise."""
    if not isinstance(loop.iter, ast.Name):
        return []
    function = function_of(loop, m.parents)
    if function is None:
        return []
    given = [node.value for node in ast.walk(function) if isinstance(node, ast.Assign)
             and any(isinstance(t, ast.Name) and t.id == loop.iter.id for t in node.targets)]
    if not given or not all(isinstance(v, (ast.List, ast.Tuple)) and v.elts for v in given):
        return []
    return given  # type: ignore[return-value]


# A literal piece of a path that names the project's own prompt folder (`/prompts/`, `templates`).
_PROMPT_FOLDER = re.compile(r"(?:^|[/\\])(?:prompts?|prompt_templates|templates)(?:[/\\]|$)", re.IGNORECASE)


def _in_prompt_folder(path: ast.expr) -> bool:
    """Whether a path is built (by `+`, `/`, an f-string or a join) with a literal folder of
    prompts or templates: the file is the project's own text, whatever variable names the file."""
    if not isinstance(path, (ast.BinOp, ast.JoinedStr, ast.Call)):
        return False
    return any(isinstance(n, ast.Constant) and isinstance(n.value, str) and _PROMPT_FOLDER.search(n.value)
               for n in ast.walk(path))


# The names of the object a program's settings are read from (`cfg.get("CACHE_PATH")`).
_SETTINGS_HOLDER = re.compile(r"^(?:cfg|conf|config|configuration|settings|\w+_config|\w+_settings)$", re.IGNORECASE)


def _configured(func: ast.expr, args: list[ast.expr]) -> bool:
    """Whether a call reads one setting by its literal key from an object named for the
    program's configuration (``cfg.get("ROLE_STORAGE_PATH")``, ``settings.get("DATA_DIR")``)."""
    if not (isinstance(func, ast.Attribute) and func.attr == "get" and args):
        return False
    holder = func.value.attr if isinstance(func.value, ast.Attribute) else \
        func.value.id if isinstance(func.value, ast.Name) else ""
    key = args[0]
    return bool(_SETTINGS_HOLDER.match(holder)) and isinstance(key, ast.Constant) and isinstance(key.value, str)


# Calls that run another program on a file (an editor opened on it).
_RUNS_PROGRAM = frozenset({"os.system", "subprocess.call", "subprocess.run", "subprocess.Popen",
                           "subprocess.check_call"})


def edited_by_user(m: Unit, node: ast.expr, env: Env) -> bool:
    """Whether the file at path ``node`` is one the function opens in the user's editor first
    (``os.system(f"{editor} {file_path}")``, the editor from ``$EDITOR``): what is read back is
    what the user typed, their own text, wherever the file is."""
    scope = env.scope
    if not isinstance(node, ast.Name) or not isinstance(scope.node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    for call in ast.walk(scope.node):
        if not (isinstance(call, ast.Call) and (m.qualified(call.func) or "") in _RUNS_PROGRAM):
            continue
        given = [n for a in arguments(call) for n in ast.walk(a)]
        if any(isinstance(n, ast.Name) and n.id == node.id for n in given) and any(map(_names_editor, given)):
            return True
    return False


def _names_editor(node: ast.AST) -> bool:
    """``editor``, ``EDITOR``, ``$VISUAL``: a name or text that says the program is the user's editor."""
    if isinstance(node, ast.Name):
        return "editor" in node.id.lower()
    return isinstance(node, ast.Constant) and isinstance(node.value, str) and (
        "editor" in node.value.lower() or node.value == "VISUAL")


# A shell command that prints the history of what the user typed: the `fc -l` and `history`
# builtins, or a read of the shell's history file.
_HISTORY_COMMAND = re.compile(r"^\s*(?:fc\s+-\w*l\w*|history)\b|[.](?:bash|zsh|sh)_history\b")


def _command(call: ast.Call) -> ast.expr | None:
    """The command line a process call is given; of ``os.popen(cmd).read()``, the inner call's."""
    if not call.args and not call.keywords and isinstance(call.func, ast.Attribute) \
            and isinstance(call.func.value, ast.Call):
        call = call.func.value
    return call.args[0] if call.args else next((k.value for k in call.keywords if k.arg in ("args", "cmd")), None)


def prints_users_history(m: Unit, scopes: Scopes, call: ast.Call, env: Env) -> bool:
    """Whether the process ``call`` starts prints what the user typed: their shell history
    (``subprocess.check_output([shell, "-ic", "fc -ln -10"])``, the command a literal or a local name
    given one), or what a command taken from that history prints when run again
    (``check_output(history[-1], shell=True)``): the user's own text and their own command's
    output, as they saw it in their terminal, not a third party's."""
    command = _command(call)
    if isinstance(command, ast.Name):
        binding = scopes.resolve(command, env)
        if binding is not None and binding.owner is None and not binding.extras:
            if _typed_by_user(m, scopes, binding.value, binding.env, 0):
                return True
            command = binding.value
    if command is None:
        return False
    return any(isinstance(n, ast.Constant) and isinstance(n.value, str) and _HISTORY_COMMAND.search(n.value)
               for n in ast.walk(command))


def prints_own_text(m: Unit, scopes: Scopes, call: ast.Call, env: Env) -> bool:
    """Whether the process ``call`` starts prints what the user typed or what this run made: not
    a third party's text."""
    return prints_users_history(m, scopes, call, env) or runs_on_named_file(m, scopes, call, env)


# A command line's program: its first word, written in the code (`chktex `, `pdflatex -interaction`).
_PROGRAM_WORD = re.compile(r"^\s*[\w.+-]+(?:\s|$)")
# The last piece of a path that names one file with its type (`template.tex`, `report.md`).
_FILE_NAME = re.compile(r"(?:^|[/\\])[\w.-]+\.\w{1,8}$")
# How many local names a path is followed back through to where it is built.
_MAX_PATH_STEPS = 4


def runs_on_named_file(m: Unit, scopes: Scopes, call: ast.Call, env: Env) -> bool:
    """Whether the process ``call`` starts runs a program the code names on a file whose name the
    code writes (``os.popen(f"chktex {tex} -q")`` after ``tex = os.path.join(cwd, "template.tex")``):
    what it prints is that program's report on an artefact of this program's own run, not text
    someone else wrote."""
    command = _command(call)
    if any(k.arg in _FEEDS_INPUT for k in call.keywords):
        return False
    if isinstance(command, ast.Name):
        binding = scopes.resolve(command, env)
        if binding is None or binding.owner is not None or binding.extras:
            return False
        command, env = binding.value, binding.env
    if isinstance(command, ast.JoinedStr):
        parts = command.values
        first = parts[0] if parts else None
        if not (isinstance(first, ast.Constant) and isinstance(first.value, str) and _PROGRAM_WORD.match(first.value)):
            return False
        filled = [p.value for p in parts if isinstance(p, ast.FormattedValue)]
    elif isinstance(command, (ast.List, ast.Tuple)) and command.elts:
        first = command.elts[0]
        if not (isinstance(first, ast.Constant) and isinstance(first.value, str)):
            return False
        filled = [e for e in command.elts[1:] if not isinstance(e, ast.Constant)]
    else:
        return False
    return bool(filled) and all(_names_a_file(m, scopes, value, env, 0) for value in filled)


def _names_a_file(m: Unit, scopes: Scopes, node: ast.expr, env: Env, steps: int) -> bool:
    """Whether ``node`` is a path the code builds ending in a file name it writes (``os.path.join(cwd,
    "template.tex")``, ``out_dir / "report.md"``), through local names."""
    if steps > _MAX_PATH_STEPS or not m.step():
        return False
    if isinstance(node, ast.Name):
        binding = scopes.resolve(node, env)
        return binding is not None and binding.owner is None and not binding.extras \
            and _names_a_file(m, scopes, binding.value, binding.env, steps + 1)
    last: ast.expr | None = None
    if isinstance(node, ast.Call) and (m.qualified(node.func) or "") in PATH_BUILDERS and node.args:
        last = node.args[-1]
    elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
        last = node.right
    return isinstance(last, ast.Constant) and isinstance(last.value, str) and bool(_FILE_NAME.search(last.value))


# Keywords that feed a process input: a process given one runs what it is sent (a shell driven
# through its standard input), whatever its own command line says.
_FEEDS_INPUT = frozenset({"stdin", "input"})


def run_by(scopes: Scopes, spec: SourceKindSpec, node: ast.expr, env: Env) -> SourceKindSpec:
    """``spec`` as what ``node`` (a call) gives: a process that runs a command the code writes out
    whole is of its own kind (FIXED_COMMAND), the program's own state rather than what a command
    someone chose prints; where the evidence must be tool output (messages.tool_output), it does not count."""
    if spec.kind == "subprocess" and isinstance(node, ast.Call) and command_written_whole(scopes, node, env):
        return replace(spec, kind=FIXED_COMMAND)
    return spec


def command_written_whole(scopes: Scopes, call: ast.Call, env: Env) -> bool:
    """Whether the process ``call`` starts runs a command the code writes out whole and feeds no
    input (``subprocess.run(["tmux", "list-sessions"])``, ``check_output("git status", shell=True)``,
    the command a literal or a local name given one): it prints the program's own state, its
    sessions, files or status, not what a command a model or a user chose prints."""
    if any(k.arg in _FEEDS_INPUT for k in call.keywords):
        return False
    command = _command(call)
    if isinstance(command, ast.Name):
        binding = scopes.resolve(command, env)
        if binding is None or binding.owner is not None or binding.extras:
            return False
        command = binding.value
    parts = command.elts if isinstance(command, (ast.List, ast.Tuple)) else [command]
    return bool(parts) and all(isinstance(p, ast.Constant) and isinstance(p.value, str) for p in parts)


# How many local names a command is followed back through to the history it was taken from.
_MAX_HISTORY_STEPS = 6


def _typed_by_user(m: Unit, scopes: Scopes, node: ast.expr, env: Env, steps: int) -> bool:
    """Whether ``node`` is taken from the output of a process that prints the user's shell
    history (``last = history[-1]`` after ``history = [l for l in out.split("\\n")]`` after
    ``out = check_output([shell, "-ic", "fc -ln"])``), through local names."""
    if steps > _MAX_HISTORY_STEPS or not m.step():
        return False
    for part in ast.walk(node):
        if isinstance(part, ast.Call) and (m.qualified(part.func) or "").startswith("subprocess.") \
                and prints_users_history(m, scopes, part, env):
            return True
        if isinstance(part, ast.Name) and isinstance(part.ctx, ast.Load):
            binding = scopes.resolve(part, env)
            if binding is not None and binding.owner is None \
                    and _typed_by_user(m, scopes, binding.value, binding.env, steps + 1):
                return True
    return False
