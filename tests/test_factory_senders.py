"""A chat model built with no limit by a factory function whose callers, in other modules, hand
it to a project function that sends requests with that parameter (bound with tools, then run
or piped into a chain): built-and-sent (CTX201, medium). Quiet when the model is given a limit
on the way, is never sent, or only tests hand it on."""

from __future__ import annotations

from pathlib import Path

from tests.projects import check_json, write_package

MODELS = '''\
from langchain_openai import ChatOpenAI


def make_model(name: str = "gpt-4o-mini"):
    model = ChatOpenAI(model=name, temperature=0)
    return model


def make_writer():
    return ChatOpenAI(model="gpt-4o")
'''

RUNNER = '''\
def build_runner(tools, model, system: str):
    if tools:
        bound = model.bind_tools(tools)
    else:
        bound = model
    return bound.with_retry()


def answer(model, question: str) -> str:
    return model.with_structured_output(dict).invoke(question)


def piped(prompt, model):
    return prompt | model


def capped(model, question: str) -> str:
    return model.bind(max_tokens=300).invoke(question)


def stored(model):
    return {"model": model}
'''


def _findings(tmp_path: Path, service: str, extra: dict[str, str] | None = None,
              models: str = MODELS) -> list[tuple[int, str, str]]:
    """CTX201's findings in the project's `models.py`: (line, kind, confidence)."""
    write_package(tmp_path, {"models.py": models, "runner.py": RUNNER, "service.py": service, **(extra or {})})
    return [(f["line"], f["kind"], f["confidence"]) for f in check_json(tmp_path, ".", "CTX201")
            if f["path"] == "app/models.py"]


def test_a_factory_model_run_by_a_project_function_of_another_module_is_built_and_sent(tmp_path: Path) -> None:
    service = '''\
from app.models import make_model, make_writer
from app.runner import answer, piped


def ask(question: str) -> str:
    model = make_model()
    return answer(model, question)


def chain(prompt):
    return piped(prompt, model=make_writer())
'''
    assert _findings(tmp_path, service) == [(5, "built-and-sent", "medium"), (10, "built-and-sent", "medium")]


def test_a_model_bound_with_tools_is_sent_by_the_chain_it_returns_only_when_run(tmp_path: Path) -> None:
    # build_runner binds tools and returns the runnable: nothing in it sends a request
    service = '''\
from app.models import make_model
from app.runner import build_runner


def runner(tools):
    return build_runner(tools, make_model(), "Be brief.")
'''
    assert _findings(tmp_path, service) == [(5, "built-without", "low"), (10, "built-without", "low")]


def test_quiet_when_the_limit_is_bound_on_the_way_or_the_model_is_only_stored(tmp_path: Path) -> None:
    service = '''\
from app.models import make_model, make_writer
from app.runner import capped, stored


def ask(question: str) -> str:
    return capped(make_model(), question)


def keep():
    return stored(make_writer())
'''
    assert _findings(tmp_path, service) == [(5, "built-without", "low"), (10, "built-without", "low")]


def test_a_model_handed_on_only_by_tests_stays_low(tmp_path: Path) -> None:
    tests = '''\
from app.models import make_model
from app.runner import answer


def check_answer():
    assert answer(make_model(), "hi")


check_answer()
'''
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_answer.py").write_text(tests)
    in_package = '''\
from app.models import make_writer
from app.runner import answer


def test_writer():
    assert answer(make_writer(), "hi")
'''
    assert _findings(tmp_path, in_package) == [(5, "built-without", "low"), (10, "built-without", "low")]


def test_community_models_the_catalogue_does_not_name_stay_low(tmp_path: Path) -> None:
    # ChatFireworks (default model_kwargs with max_tokens 512) and BedrockChat (1,024 for Claude)
    # send limits of their own; the catalogue knows them only by the package's glob
    models = '''\
from langchain_community.chat_models import BedrockChat, ChatFireworks


def make_fast():
    return ChatFireworks(model="accounts/fireworks/models/llama-v3-8b-instruct")


def make_claude():
    return BedrockChat(model_id="anthropic.claude-3-haiku-20240307-v1:0")
'''
    service = '''\
from app.models import make_claude, make_fast
from app.runner import answer


def ask(question: str) -> str:
    return answer(make_fast(), question) + answer(make_claude(), question)
'''
    assert _findings(tmp_path, service, models=models) == [(5, "built-without", "low"), (9, "built-without", "low")]


def test_quiet_when_a_caller_or_the_factory_gives_the_model_a_limit_before_it_is_sent(tmp_path: Path) -> None:
    models = '''\
from langchain_openai import ChatOpenAI


def make_model(name: str = "gpt-4o-mini"):
    model = ChatOpenAI(model=name, temperature=0)
    model = model.bind(max_tokens=400)
    return model


def make_writer():
    return ChatOpenAI(model="gpt-4o")
'''
    service = '''\
from app.models import make_model, make_writer
from app.runner import answer


def ask(question: str) -> str:
    writer = make_writer()
    writer.max_tokens = 600
    return answer(make_model(), question) + answer(writer, question)
'''
    assert _findings(tmp_path, service, models=models) == [(5, "built-without", "low"), (11, "built-without", "low")]


def test_a_factory_that_builds_one_model_per_branch_in_one_name(tmp_path: Path) -> None:
    models = '''\
from langchain_openai import AzureChatOpenAI, ChatOpenAI


def make_model(azure: bool = False):
    if azure:
        model = AzureChatOpenAI(azure_deployment="chat", api_version="2024-06-01")
    else:
        model = ChatOpenAI(model="gpt-4o-mini")
    return model
'''
    service = '''\
from app.models import make_model
from app.runner import answer


def ask(question: str, azure: bool) -> str:
    if azure:
        model = make_model(azure=True)
    else:
        model = make_model()
    return answer(model, question)
'''
    assert _findings(tmp_path, service, models=models) == [(6, "built-and-sent", "medium"),
                                                           (8, "built-and-sent", "medium")]


def test_a_caller_in_another_module_that_runs_the_factory_model_itself(tmp_path: Path) -> None:
    service = '''\
from app.models import make_model, make_writer


async def ask(question: str) -> str:
    model = await make_model()
    return (await model.with_structured_output(dict).ainvoke(question))["answer"]


def capped(question: str) -> str:
    return make_writer().bind(max_tokens=200).invoke(question).content
'''
    models = MODELS.replace("def make_model", "async def make_model")
    assert _findings(tmp_path, service, models=models) == [(5, "built-and-sent", "medium"),
                                                           (10, "built-without", "low")]


GEMINI_CONFIG = '''\
import google.generativeai as genai


class Settings:
    def __init__(self, api_key: str) -> None:
        self.api_key = api_key

    def vision_model(self):
        genai.configure(api_key=self.api_key)
        model = genai.GenerativeModel("gemini-1.5-flash")
        return model
'''


def _gemini_findings(tmp_path: Path, service: str, extra: dict[str, str] | None = None) -> list[tuple[int, str, str]]:
    write_package(tmp_path, {"settings.py": GEMINI_CONFIG, "service.py": service, **(extra or {})})
    return [(f["line"], f["kind"], f["confidence"]) for f in check_json(tmp_path, ".", "CTX201")
            if f["path"] == "app/settings.py"]


def test_a_model_a_method_returns_sent_by_a_module_that_imports_its_class_is_built_and_sent(tmp_path: Path) -> None:
    # the request is one of the catalogue's sinks on the model's class, not a runnable's call
    service = '''\
from app.settings import Settings

settings = Settings("key")


def describe(image) -> str:
    model = settings.vision_model()
    return model.generate_content(["Describe this screenshot.", image]).text


print(describe(None))
'''
    assert _gemini_findings(tmp_path, service) == [(10, "built-and-sent", "medium")]
    evidence = [e for f in check_json(tmp_path, ".", "CTX201") for e in f["evidence"] if f["path"] == "app/settings.py"]
    assert any(e["path"] == "app/service.py" and e["line"] == 8 for e in evidence)


def test_a_method_factory_stays_low_when_the_call_gives_a_limit_or_another_module_defines_the_name(
        tmp_path: Path) -> None:
    service = '''\
from app.settings import Settings

settings = Settings("key")


def describe(image) -> str:
    model = settings.vision_model()
    return model.generate_content(["Describe it.", image], generation_config={"max_output_tokens": 300}).text


print(describe(None))
'''
    (tmp_path / "given").mkdir()
    assert _gemini_findings(tmp_path / "given", service) == [(10, "built-without", "low")]
    other = '''\
class Camera:
    def vision_model(self):
        return "local-vision"
'''
    unlimited = service.replace(', generation_config={"max_output_tokens": 300}', "")
    (tmp_path / "shared").mkdir()
    assert _gemini_findings(tmp_path / "shared", unlimited, {"camera.py": other}) == [(10, "built-without", "low")]
