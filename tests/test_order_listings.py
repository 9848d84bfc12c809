"""A directory listing whose order reaches a prompt through a template of the project's settings
(orderprompts.py, settingscuts.py): the module is read at all only because it renders such a
template and lists a directory (prefilter.py)."""

from __future__ import annotations

import ast

from ctxlint.frontends.python.prefilter import interesting

HELP = '''\
import copy
from pathlib import Path

from jinja2 import Environment

from app.config import get_settings


class Help:
    def __init__(self, handler, question):
        self.handler = handler
        self.vars = {"question": question, "pages": ""}

    async def _predict(self, model):
        variables = copy.deepcopy(self.vars)
        user = Environment().from_string(get_settings().help.user).render(variables)
        return await self.handler.chat_completion(model=model, user=user)

    async def run(self, root):
        text = ""
        for page in LISTED:
            text += page.read_text()
        self.vars["pages"] = text
        return await self._predict("m")
'''


def test_a_module_that_renders_a_settings_template_and_lists_a_directory_is_read() -> None:
    assert interesting(ast.parse(HELP.replace("LISTED", 'Path(root).glob("*.md")')))


def test_a_module_that_renders_a_settings_template_and_lists_nothing_is_not() -> None:
    assert not interesting(ast.parse(HELP.replace("LISTED", "root.pages")))


def test_a_module_that_renders_a_settings_template_and_builds_a_set_is_read() -> None:
    assert interesting(ast.parse(HELP.replace("LISTED", "{p for p in root.pages}")))
