"""The framework catalogue: what LLM SDKs and agent frameworks send, build and read, as data.

One YAML file per framework (``frameworks/`` at the top of the repository, shipped in the wheel
as ``ctxlint/framework_files``) names, by qualified name:

- ``sinks``: calls that send a request, and which argument carries what (system text, messages,
  user input, tools, the output limit, the model); the framework's default output limit; a
  ``payload`` for a call that posts any body (``requests.post(url, json=body)``): the call is a
  request only when that body has a chat request's keys, whose keys the arguments then name (its
  output limit, unless named, where the providers' API shapes keep it: ``providers.posted_limits``);
  ``media_too`` for a call that runs any model by name (images and audio as well as text), which
  is a text request only where it gives a limit; ``limit_required`` for an API that rejects a
  call without its limit, so a limit left to the keywords a caller passes is given by every caller;
  ``rejects`` the keywords the SDK's method does not take, with which the call raises before it
  sends anything (OpenAI's v1 clients and ``engine=``);
- ``holders``: objects built once and used by a sink later (a chat model with its settings, an
  agent with its instructions and tools); ``standalone`` ones are prompts on their own;
  ``model_carries_limit`` says a model given as an object rather than a name may bring its own
  output limit (a Pydantic AI ``Model`` built with ``settings=``), ``limited_models`` the model or
  provider names (globs) for which the object built sends a limit of its own (``init_chat_model``
  of a Claude model builds a ChatAnthropic), ``ignored_limits`` the limit keywords other models
  take that this one silently drops (ChatOllama's limit is ``num_predict``, not ``max_tokens``);
  ``limit_per_call`` that each call of the object may give the limit as well (LMI's
  ``call_single(max_tokens=...)``), so one built without is reported at the calls that give none;
  ``summarises`` says what an agent does with a long run's history (deepagents summarises the
  oldest messages, keeping the system prompt), so a rule in the messages a run starts with is lost;
  a ``named_model`` argument is a model an agent takes by its ``"provider:model"`` name and builds
  with no settings (``create_agent(model="openai:gpt-4o")``);
- ``messages`` and ``templates``: constructors of one message with a role, and of prompt
  templates whose fields are filled later;
- ``sources``: calls whose result is third-party content (HTTP bodies, parsed pages, retriever
  results, tool results, database rows ...);
- ``labels`` and ``escapes``: calls that delimit or escape content;
- ``trimmers``: calls that drop messages of a conversation until it fits a budget and put
  nothing in their place (LangChain's ``trim_messages``);
- ``rows``: database queries whose rows come in the order the database picks unless the query
  asks for one (an ORM's querysets, SQL text run with no ORDER BY) and what orders them (CTX104);
- ``tools``: decorators and constructors that turn a function into a tool the model sees, and
  ``registries``: decorators that list a function or class in a registry prompts pick tools from;
  ``renames: true`` says the framework rewrites every tool's name into one providers take;
- ``signatures``: classes whose docstring and field descriptions are instructions (DSPy);
- ``typescript``: the same knowledge for the framework's TypeScript/JavaScript packages, read by
  the TypeScript front-end (``ctxlint/frameworks/typescript.py`` says what it holds).

``imports`` lists the libraries (import roots) the entries come from: a module that imports none
of any framework is not read for them, and one that imports an LLM library is code that talks to
a model, whose prompt-named values are prompts. ``llm: false`` says a framework's libraries only
bring content in (HTTP clients, files, e-mail) and do not make a module LLM code. ``exports``
maps a name a library also exports an object under to the name its entries use
(``openai.AsyncClient: openai.AsyncOpenAI``): an import of the first is read as the second.

Calls are matched by *call path*: the qualified name of the function called, resolved through
the module's imports (``litellm.completion``), or for a method the path of the object it is
called on followed by the method (``openai.OpenAI().chat.completions.create``: ``()`` marks an
instance of the class). A receiver whose type the code does not show is ``?``
(``?.chat.completions.create``); such calls match only a sink's ``shapes``, which are weaker
evidence. Patterns are shell globs (``*`` matches anything, dots included).

Users extend the catalogue from their configuration (``frameworks = ["my/frameworks/"]``): a
file whose ``framework`` name is already known replaces the shipped one, and
``builtin-frameworks = false`` starts from an empty catalogue. Every file is validated when it
loads; a bad entry is a load error that names the file and the key (exit 2).
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path

from ctxlint.frameworks.entries import (
    Arg,
    Framework,
    FrameworkError,
    Holder,
    MessageKind,
    Signature,
    Sink,
    SourceKindSpec,
    TemplateKind,
)
from ctxlint.frameworks.index import Catalogue
from ctxlint.frameworks.reader import Reader

__all__ = ["Arg", "Catalogue", "Framework", "FrameworkError", "Holder", "MessageKind", "Signature", "Sink",
           "SourceKindSpec", "TemplateKind", "builtin_frameworks_dir", "cached_frameworks", "load_framework",
           "load_frameworks"]


def builtin_frameworks_dir() -> Path:
    """The catalogue inside the installed wheel, or the repository's `frameworks/` in a checkout."""
    package = Path(__file__).parent.parent
    packaged = package / "framework_files"
    return packaged if packaged.is_dir() else package.parent / "frameworks"


def load_frameworks(extra: Iterable[Path] = (), builtin: bool = True) -> dict[str, Framework]:
    """Every framework by name: the shipped files, then each extra file or folder in order (a
    later file with the same ``framework`` name replaces the earlier one)."""
    found: dict[str, Framework] = {}
    sources = ([builtin_frameworks_dir()] if builtin else []) + list(extra)
    for source in sources:
        if source.is_dir():
            paths = sorted(source.glob("*.yaml"))
        elif source.is_file():
            paths = [source]
        else:
            raise FrameworkError(f"{source}: framework file or folder not found")
        for path in paths:
            framework = load_framework(path)
            found[framework.name] = framework
    return found


@lru_cache(maxsize=8)
def cached_frameworks(extra: tuple[Path, ...] = (), builtin: bool = True) -> Catalogue:
    return Catalogue(load_frameworks(extra, builtin))


def load_framework(path: Path) -> Framework:
    from ctxlint import yamlsafe  # imported here: only a run that lints Python needs the catalogue

    try:
        data = yamlsafe.load_file(path)
    except yamlsafe.FileError as error:
        raise FrameworkError(f"{error.where}: cannot load framework file: {error.reason}") from None
    return Reader(path).framework(data)
