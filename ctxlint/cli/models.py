"""`ctxlint models`: every model ctxlint knows (the built-in table and the configuration's
``[models."name"]`` entries), or the models some names resolve to."""

from __future__ import annotations

import argparse

from ctxlint.cli.common import UsageError, add_listing_options, load_project, write_listing


def add_parser(commands) -> None:
    models = commands.add_parser(
        "models", help="list the models ctxlint knows: window, output limit, prices and their sources")
    models.add_argument("names", nargs="*", metavar="NAME",
                        help="show only the models these names resolve to (any spelling: openai/gpt-4o, "
                             "vertex_ai/claude-3-7-sonnet@20250219, a Bedrock id, ...)")
    add_listing_options(models)


def run(args: argparse.Namespace) -> int:
    from ctxlint.report.models import models_json, models_text
    from ctxlint.tokens import MODELS, guess_model, load_extra_models, lookup_model

    extra = load_project(args).resolver.default.models
    configured = load_extra_models(extra) if extra else ()
    known = {info.name: info for info in MODELS}
    known.update((info.name, lookup_model(info.name, extra) or info) for info in configured)
    asked = []
    for name in args.names:
        info = lookup_model(name, extra)
        if info is None:
            guess = guess_model(name)
            raise UsageError(f"`{name}` is not a model ctxlint knows ({guess.reason}); describe it under "
                             f'[tool.ctxlint.models."{name}"] (window, max-output, provider, prices)')
        asked.append((name, info))
    models = list(dict.fromkeys(info for _, info in asked)) if asked else list(known.values())
    return write_listing(args, models_text, models_json, models, asked)
