"""A call that runs the tool the model asked for: the call is handed the name of a tool call
the model made (``execute(tool_call.function.name, **args)``, ``TOOLS[block.name](...)``), so
what it returns is that tool's result, whatever the function it ends in is called.

The tool call's name is read where the APIs put it: ``call.function.name`` and
``call["function"]["name"]`` (OpenAI's tool calls), ``message.function_call.name`` (its older
function calls), or ``.name`` of an object named for a tool call (``tool_call.name``,
``tool_use.name``, Anthropic's block), followed through the names it is assigned to.
"""

from __future__ import annotations

import ast
import re

from ctxlint.frontends.python.calls import last_name
from ctxlint.frontends.python.scopes import Scopes
from ctxlint.frontends.python.values import Env

# The part of a model's answer that is a tool call: `tool_call`, `tool_use`, `function_call`, `tc`.
_TOOL_CALL_WORDS = re.compile(r"(?:^|_)(?:tool_?calls?|tool_?uses?|function_?calls?|fn_?calls?|tc|fc)$",
                              re.IGNORECASE)
# The field of a tool call that holds the called function: OpenAI's `function`, its older `function_call`.
_FUNCTION_FIELDS = ("function", "function_call")
# The fields a record of a tool call keeps its result in: `tc["result"]`, `step.observation`.
_RESULT_FIELDS = ("result", "output", "observation", "tool_output", "tool_result")
_MAX_STEPS = 6
# Methods of dicts and strings handed a name that run nothing: `tools.get(name, None)`, `"{}".format(name, n)`.
_NOT_RUNS = frozenset({"get", "pop", "setdefault", "format", "replace", "split", "join", "startswith", "endswith",
                       "index", "count", "find"})


def _key(node: ast.expr) -> tuple[ast.expr, str] | None:
    """The object and the field a read takes: ``x.name``, ``x["name"]``, ``x.get("name")``."""
    if isinstance(node, ast.Attribute):
        return node.value, node.attr
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
        return node.value, node.slice.value
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" \
            and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
        return node.func.value, node.args[0].value
    return None


def _followed(scopes: Scopes, node: ast.expr, env: Env) -> tuple[ast.expr, Env]:
    """A name's value while it has one plain assignment: ``name = tool_call.function.name``."""
    for _ in range(_MAX_STEPS):
        if not isinstance(node, ast.Name):
            break
        binding = scopes.resolve(node, env)
        if binding is None or binding.extras:
            break
        node, env = binding.value, binding.env
    return node, env


def _last_word(node: ast.expr) -> str:
    """The last name of a value: ``tool_calls`` of ``message.tool_calls`` or ``m.get("tool_calls", [])``."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "enumerate" and node.args:
        node = node.args[0]
    if isinstance(node, ast.Name):
        return node.id
    read = _key(node)
    return read[1] if read is not None else ""


def _tool_call(scopes: Scopes, node: ast.expr, env: Env) -> bool:
    """Whether an object is a tool call of the model's or its function part: named for one, read
    from the field of one, or an item of a loop over what is named for them
    (``for call in message.tool_calls``)."""
    if _TOOL_CALL_WORDS.search(_last_word(node)):
        return True
    if isinstance(node, ast.Name):
        target = scopes.unknowable_target(node, env)
        loop = scopes.m.parents.get(id(target)) if target is not None else None
        if isinstance(loop, (ast.Tuple, ast.List)):
            loop = scopes.m.parents.get(id(loop))
        if isinstance(loop, (ast.For, ast.AsyncFor)) and _TOOL_CALL_WORDS.search(_last_word(loop.iter)):
            return True
    node, env = _followed(scopes, node, env)
    read = _key(node)
    if read is not None and read[1] in _FUNCTION_FIELDS:
        return True  # tool_call.function, message["function_call"]
    return bool(_TOOL_CALL_WORDS.search(_last_word(node)))


def model_tool_name(scopes: Scopes, node: ast.expr, env: Env) -> bool:
    """Whether a value is the name of a tool the model called."""
    node, env = _followed(scopes, node, env)
    read = _key(node)
    return read is not None and read[1] == "name" and _tool_call(scopes, read[0], env)


def runs_called_tool(scopes: Scopes, call: ast.Call, env: Env) -> bool:
    """Whether a call runs the tool the model called: it is handed the tool call's name
    (``execute_function_wrapper(name, **args)``) or is taken from a table by it
    (``TOOLS[tool_use.name](**tool_use.input)``, ``tool = tools[name]; tool(**args)``)."""
    func, fenv = _followed(scopes, call.func, env)
    if isinstance(func, ast.Subscript) and model_tool_name(scopes, func.slice, fenv):
        return True
    called = last_name(call.func) or ""
    if called in _NOT_RUNS or called[:1].isupper() or len(call.args) + len(call.keywords) < 2:
        # `tools.get(name, None)`, `title(name)`: handed the name alone, not the arguments to run it
        # with; `ToolCall(name=..., args=...)`: a record of the call, built, not run
        return False
    handed = [*call.args[:1], *(k.value for k in call.keywords if k.arg in ("name", "tool_name", "function_name"))]
    return any(model_tool_name(scopes, arg, env) for arg in handed)


def tool_call_result(scopes: Scopes, node: ast.expr, env: Env) -> bool:
    """Whether a value is the result kept with a tool call (``tc.get("result")`` for ``tc`` in
    ``turn["tool_calls"]``): what the tool gave back when it ran."""
    read = _key(node)
    return read is not None and read[1] in _RESULT_FIELDS and _tool_call(scopes, read[0], env)


# The roles a message of a tool's result is sent in (OpenAI's `tool`, its older `function`), and the
# classes that hold one (LangChain's).
_TOOL_ROLES = frozenset({"tool", "function"})
_TOOL_MESSAGES = frozenset({"ToolMessage", "FunctionMessage"})
_MAX_UP = 40


def tool_message_content(scopes: Scopes, node: ast.expr, env: Env) -> bool:
    """Whether a value is the content of a message the code has just tested to be a tool's result:
    ``message["content"]`` under ``if message["role"] == "tool":`` (through a name that holds the
    role, lower-cased or with a default), ``m.content`` under ``if isinstance(m, ToolMessage):``."""
    read = _key(node)
    if read is None or read[1] != "content":
        return False
    holder = ast.dump(read[0])
    parents = scopes.m.parents
    child: ast.AST = node
    parent = parents.get(id(node))
    for _ in range(_MAX_UP):
        if parent is None or isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            return False
        if isinstance(parent, ast.If) and any(child is s for s in parent.body) \
                and _tests_tool(scopes, parent.test, holder, env):
            return not _keeps_role(env.scope.node, holder)
        child, parent = parent, parents.get(id(parent))
    return False


def _keeps_role(function: ast.AST, holder: str) -> bool:
    """Whether ``function`` writes a message that keeps the tool's role its content came in: one
    in the tool role (``{"role": "tool", ...}``, ``Message(role="tool", ...)``) or in the role of the
    message it read (``{"role": message.role, "content": content}``): a converter to another API's
    format, whose tool results stay labelled by their role."""
    for node in ast.walk(function):
        if isinstance(node, ast.Dict):
            pairs = [(k.value, v) for k, v in zip(node.keys, node.values, strict=True)
                     if isinstance(k, ast.Constant)]
        elif isinstance(node, ast.Call):
            pairs = [(k.arg, k.value) for k in node.keywords]
        else:
            continue
        for key, value in pairs:
            if key != "role":
                continue
            if isinstance(value, ast.Constant) and isinstance(value.value, str) and value.value.lower() in _TOOL_ROLES:
                return True
            read = _key(value)
            if read is not None and read[1] == "role" and ast.dump(read[0]) == holder:
                return True
    return False


def _tests_tool(scopes: Scopes, test: ast.expr, holder: str, env: Env) -> bool:
    """Whether ``test`` holds only for a tool's message ``holder`` (an `ast.dump`)."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return any(_tests_tool(scopes, value, holder, env) for value in test.values)
    if isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "isinstance" \
            and len(test.args) == 2 and ast.dump(test.args[0]) == holder:
        classes = test.args[1].elts if isinstance(test.args[1], ast.Tuple) else [test.args[1]]
        return all((last_name(c) or "") in _TOOL_MESSAGES for c in classes)
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
        return False
    sides = [test.left, test.comparators[0]]
    role = next((s.value.lower() for s in sides if isinstance(s, ast.Constant) and isinstance(s.value, str)), None)
    if role not in _TOOL_ROLES:
        return False
    tested = next(s for s in sides if not isinstance(s, ast.Constant))
    if isinstance(tested, ast.Call) and isinstance(tested.func, ast.Attribute) and tested.func.attr == "lower":
        tested = tested.func.value  # `role.lower() == "tool"`
    tested, _ = _followed(scopes, tested, env)
    if isinstance(tested, ast.IfExp):
        tested = tested.body  # `message["role"] if "role" in message else "user"`
    read = _key(tested)
    return read is not None and read[1] in ("role", "type") and ast.dump(read[0]) == holder
