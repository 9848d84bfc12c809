"""JSON and YAML files: chat requests, tool catalogues and YAML prompt templates.

Most JSON and YAML in a repository is not a prompt (package manifests, CI workflows, compose
files, Kubernetes manifests, OpenAPI documents, lock files). A cheap look at the raw text
decides first whether a file can be one of the shapes below; anything else returns an empty
result without being parsed, and its syntax errors are none of ctxlint's business.

Shapes recognised (parse only: nothing is rendered, YAML is loaded with the safe loader):

- a **chat request**: OpenAI chat completions (``model``, ``messages``, ``tools``,
  ``max_completion_tokens``/``max_tokens``), OpenAI Responses (``instructions``, ``input``,
  ``max_output_tokens``), Anthropic messages (``system`` as text or blocks, ``messages`` with
  content blocks, ``cache_control``, ``max_tokens``), GitHub Models ``.prompt.yml``
  (``modelParameters.maxTokens``);
- a **tool catalogue**: a list of tools, ``{"tools": [...]}``, an MCP ``tools/list`` result
  ``{"result": {"tools": [...]}}`` or legacy ``{"functions": [...]}``, each tool in the OpenAI
  (``type: function``, nested or flat), legacy function, Anthropic (``input_schema``) or MCP
  (``inputSchema``) shape;
- **YAML prompt files**: string values under keys that name a prompt (``system_prompt: |-``,
  ``instructions``, CrewAI ``role``/``goal``/``backstory``), Semantic Kernel prompt YAML
  (``template`` with ``template_format`` and ``execution_settings``) and LangChain prompt YAML
  (``_type: prompt``), and the top-level ``content`` of a file named for a prompt
  (``code_generator_prompt.yaml``).

String values are parsed as templates (Jinja when they hold ``{{``/``{%``; ``{name}`` fields for
f-string formats; ``{{$var}}`` for Semantic Kernel and Handlebars) and every segment gets an
exact file span: offsets inside a decoded JSON string are mapped back through its escapes,
offsets inside a YAML scalar through its indentation and quoting.

This module sniffs and dispatches; ``context`` holds what reading one file carries (and YAML's
nodes with offsets), ``requests``, ``tools`` and ``prompts`` read the shapes above.
"""

from __future__ import annotations

import re
from fnmatch import fnmatchcase
from pathlib import PurePosixPath

from ctxlint.frontends.structured.context import Context, Refused
from ctxlint.frontends.structured.prompts import yaml_prompts
from ctxlint.frontends.structured.requests import chat_request, gemini_request
from ctxlint.frontends.structured.tools import tool_file
from ctxlint.model import ParsedFile

# --- configuration ------------------------------------------------------------------------

# Files that are never prompts, whatever keys they contain.
_NEVER_NAMES = {
    "package.json", "package-lock.json", "npm-shrinkwrap.json", "composer.json", "pnpm-lock.yaml",
    "yarn.lock", "deno.json", "deno.lock", "bun.lock", ".eslintrc.json", ".babelrc.json",
    ".prettierrc.json", "renovate.json", ".pre-commit-config.yaml", ".pre-commit-hooks.yaml",
    "mkdocs.yml", "mkdocs.yaml", "chart.yaml", "codecov.yml", "dependabot.yml", ".gitlab-ci.yml",
    "action.yml", "action.yaml", "environment.yml", "environment.yaml", "pubspec.yaml",
    "docker-compose.yml", "docker-compose.yaml", "compose.yml", "compose.yaml",
}
_NEVER_NAME_GLOBS = ("tsconfig*.json", "jsconfig*.json", "*.lock.json", "docker-compose*.yml",
                     "docker-compose*.yaml",
                     # sample content for `ctxlint budget`, not a request or a tool catalogue
                     "*.fixtures.json", "*.fixtures.yaml", "*.fixtures.yml")
_NEVER_DIRS = (".github/workflows/", ".vscode/", ".idea/", ".devcontainer/", "node_modules/")

# --- cheap sniffing -------------------------------------------------------------------------

_JSON_OBJECT_KEYS = re.compile(
    r'"(?:messages|tools|functions|input_schema|inputSchema)"\s*:|"(?:input|contents)"\s*:\s*\[|"instructions"\s*:\s*"'
    r'|"(?:function|parameters)"\s*:\s*\{|"input"\s*:\s*"')
_JSON_LIST_KEYS = re.compile(r'"(?:parameters|function|input_schema|inputSchema)"\s*:')
_YAML_KEYS = re.compile(
    r"""(?:^|[{,])[ \t]*(?:-[ \t]+)*["']?(?:messages|tools|functions|input_schema|inputSchema|system|template|input|"""
    r"""backstory|persona|preamble|[\w-]*_template|[\w-]*(?:[Pp]rompt|[Ii]nstruction)[\w-]*)["']?[ \t]*:(?:[ \t]|$)""",
    re.MULTILINE,
)
_YAML_WORDS = ("messages", "tools", "functions", "input", "system", "template", "backstory",
               "persona", "preamble", "rompt", "nstruction", "parameters", "function")  # cheaper than _YAML_KEYS
_YAML_CONTENT = re.compile(r"^content[ \t]*:", re.MULTILINE)  # a prompt file's text (structured/prompts.py)
_YAML_LIST_KEYS = re.compile(r"^[ \t]*(?:-[ \t]+)*(?:parameters|function)[ \t]*:(?:[ \t]|$)", re.MULTILINE)
# Top-level keys that mark a YAML document as something else (CI, deployment, API description).
_YAML_FOREIGN = (
    (re.compile(r"^jobs[ \t]*:", re.M), re.compile(r"""^(?:on|"on"|'on'|true)[ \t]*:""", re.M)),  # GitHub Actions
    (re.compile(r"^apiVersion[ \t]*:", re.M), re.compile(r"^kind[ \t]*:", re.M)),  # Kubernetes
    (re.compile(r"^services[ \t]*:", re.M), re.compile(r"^[ \t]+(?:image|build)[ \t]*:", re.M)),  # compose
    (re.compile(r"^(?:openapi|swagger|asyncapi)[ \t]*:", re.M), None),  # OpenAPI / AsyncAPI
    (re.compile(r"^(?:AWSTemplateFormatVersion|Resources)[ \t]*:", re.M), None),  # CloudFormation
    (re.compile(r"^stages[ \t]*:", re.M), re.compile(r"^[ \t]+script[ \t]*:", re.M)),  # GitLab CI
    (re.compile(r"^-[ \t]+(?:hosts|import_playbook)[ \t]*:", re.M), None),  # Ansible
)
# Keys that mark a JSON document as something else: an API description, a TypeScript config, a
# CloudFormation template, or a document that names its own schema (Azure Resource Manager
# templates, the configuration files of schemastore.org).
_JSON_FOREIGN = re.compile(r'"(?:openapi|swagger|asyncapi|compilerOptions|AWSTemplateFormatVersion)"\s*:\s*["{]'
                           r'|"\$schema"\s*:\s*"https?://(?:schema\.management\.azure\.com|json\.schemastore\.org)/')
_FIRST_SIGNIFICANT = re.compile(r"\A(?:[ \t]*(?:#[^\n]*)?\n)*[ \t]*(\S)")


def sniff(text: str, path: str) -> str | None:
    """``"json"`` or ``"yaml"`` when the file can hold a request, tools or prompts; else None."""
    suffix = PurePosixPath(path).suffix.lower()
    is_json = suffix == ".json"
    if not is_json and suffix not in (".yaml", ".yml"):
        # Only a configured glob sends any other file here (tool snapshots a test suite writes,
        # `*.tools`): its content says whether it is JSON or YAML.
        is_json = text.lstrip()[:1] in ("{", "[")
    posix = path.replace("\\", "/")
    name = posix.rsplit("/", 1)[-1].lower()
    if name in _NEVER_NAMES or any(fnmatchcase(name, g) for g in _NEVER_NAME_GLOBS):
        return None
    if any(d in "/" + posix for d in ("/" + d for d in _NEVER_DIRS)):
        return None
    if is_json:
        start = text.lstrip()[:1]
        if start == "{":
            found = _JSON_OBJECT_KEYS.search(text) is not None
            if found and _JSON_FOREIGN.search(text, 0, 4096):
                return None
            return "json" if found else None
        if start == "[":
            return "json" if _JSON_LIST_KEYS.search(text) else None
        return None
    prompt_content = "prompt" in name and _YAML_CONTENT.search(text) is not None
    if not prompt_content and not any(word in text for word in _YAML_WORDS):
        return None
    if not prompt_content and not _YAML_KEYS.search(text):
        first = _FIRST_SIGNIFICANT.match(text)
        if not (first and first.group(1) == "-" and _YAML_LIST_KEYS.search(text)):
            return None
    for marker, companion in _YAML_FOREIGN:
        if marker.search(text) and (companion is None or companion.search(text)):
            return None
    return "yaml"


# --- entry point ----------------------------------------------------------------------------


def parse_file(text: str, path: str) -> ParsedFile:
    parsed = ParsedFile(path)
    kind = sniff(text, path)
    if kind is None:
        return parsed
    ctx = Context(text, path, parsed)
    try:
        root = ctx.load_json() if kind == "json" else ctx.load_yaml()
    except Refused as refused:
        parsed.errors.append((ctx.point(refused.offset, refused.line_column), refused.message))
        return parsed
    if root is None:
        return parsed
    try:
        request = chat_request(ctx, root) or gemini_request(ctx, root) or tool_file(ctx, root)
        requests = [request] if request is not None else yaml_prompts(ctx, root) if kind == "yaml" else []
    except Refused as refused:  # too big to analyse
        parsed.errors = [(ctx.point(refused.offset), refused.message)]
        return parsed
    parsed.requests.extend(requests)
    return parsed
