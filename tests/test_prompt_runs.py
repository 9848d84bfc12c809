"""What a run of a Dotprompt loaded by name says of the output limit (python/prompt_runs.py)."""

import ast
import json

import pytest

from ctxlint.frontends.code.runs import LIMIT, NO_LIMIT, UNKNOWN
from ctxlint.frontends.python.prompt_runs import _limit


@pytest.mark.parametrize(("code", "expected"), [
    ('review(input={"diff": diff})', NO_LIMIT),
    ('review(input=x, config={"temperature": 0.2})', NO_LIMIT),
    ('review(input=x, config={"maxOutputTokens": 800})', LIMIT),
    ("review(input=x, config=GenerationCommonConfig(max_output_tokens=800))", LIMIT),
    ("review(input=x, config=GenerationCommonConfig(temperature=0.2))", NO_LIMIT),
    ("review(input=x, config=settings)", UNKNOWN),  # built out of sight
    ("review(input=x, **options)", UNKNOWN),
    ('review(input=x, config={**base, "temperature": 0})', UNKNOWN),
    ("review(x, opts)", UNKNOWN),
])
def test_what_a_run_says_of_the_limit(code, expected):
    call = ast.parse(code, mode="eval").body
    assert isinstance(call, ast.Call)
    assert _limit(call, skip=1) == expected


PROMPT = "---\nmodel: googleai/gemini-2.5-flash\n---\nReview this diff and list the bugs it adds: {{diff}}\n"
PY_PASSED_ON = '''from genkit import Genkit

ai = Genkit(model="googleai/gemini-2.5-flash")


async def review_change(diff: str, helper) -> str:
    review = ai.prompt("review_diff")
    await review(input={"diff": diff})
    return await helper(review, diff)
'''
TS_PASSED_ON = '''import { genkit } from "genkit";

const ai = genkit({ plugins: [] });
const review = ai.prompt("review_diff");

export async function reviewChange(diff: string, helper: Function) {
  await review({ diff });
  return helper(review, diff);
}
'''


@pytest.mark.parametrize(("module", "text"), [("src/app.py", PY_PASSED_ON), ("src/flows.ts", TS_PASSED_ON)])
def test_a_prompt_passed_on_is_not_said_to_run_without_a_limit(project, module, text):
    # The helper's runs are not seen: one run without a limit here proves nothing of the others.
    project.write({"prompts/review_diff.prompt": PROMPT, module: text})
    run = project.run("check", "--select", "CTX201", "--format", "json", "prompts/review_diff.prompt")
    [finding] = json.loads(run.stdout)
    assert (finding["line"], finding["kind"]) == (1, "call")
    assert "where the code runs this prompt" not in finding["message"]
