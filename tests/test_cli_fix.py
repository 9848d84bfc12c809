"""`ctxlint check --fix` and `--diff` on real files, as a user runs them."""

from __future__ import annotations

SERVICE = '''import json
from openai import OpenAI

client = OpenAI()
POLICY = dict.fromkeys({"free_returns", "store_credit", "exchanges"}, True)
SYSTEM_PROMPT = f"""Store policy: {json.dumps(POLICY)}
You are the returns assistant. Never promise a refund. Explain each option the policy lists in plain words, ask for the order number before you discuss an order, and hand damaged or missing parcels to a human agent. Answer in three short paragraphs at most, and never share another customer's details.
"""


def answer(question):
    return client.chat.completions.create(
        model="gpt-4o", max_completion_tokens=400,
        messages=[{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": question}],
    )
'''
# The service is called from the app: a prompt only uncalled code reads is low confidence.
APP = "from service import answer\n\nprint(answer(input()))\n"
FIXED = SERVICE.replace("json.dumps(POLICY)", "json.dumps(POLICY, sort_keys=True)")


def test_diff_shows_the_fix_and_writes_nothing(project):
    project.write({"service.py": SERVICE, "app.py": APP})
    run = project.run("check", "--diff", "service.py")
    assert run.code == 1
    assert run.lines == [
        "--- a/service.py",
        "+++ b/service.py",
        "@@ -3,7 +3,7 @@",
        " ",
        " client = OpenAI()",
        ' POLICY = dict.fromkeys({"free_returns", "store_credit", "exchanges"}, True)',
        '-SYSTEM_PROMPT = f"""Store policy: {json.dumps(POLICY)}',
        '+SYSTEM_PROMPT = f"""Store policy: {json.dumps(POLICY, sort_keys=True)}',
        " You are the returns assistant. Never promise a refund. Explain each option the policy lists in plain words, ask for the order number before you discuss an order, and hand damaged or missing parcels to a human agent. Answer in three short paragraphs at most, and never share another customer's details.",
        ' """',
        " ",
    ]
    assert run.err_lines == ["1 fix in 1 file would be applied (nothing was written)."]
    assert (project.root / "service.py").read_text() == SERVICE


def test_fix_rewrites_only_the_call_and_a_second_run_changes_nothing(project):
    project.write({"service.py": SERVICE, "app.py": APP})
    first = project.run("check", "--fix", "service.py")
    assert first.code == 0
    assert first.err_lines == ["Fixed 1 finding in 1 file."]
    assert first.lines == ["All checks passed (1 file checked)."]
    assert (project.root / "service.py").read_text() == FIXED
    second, diff = project.run("check", "--fix", "service.py"), project.run("check", "--diff", "service.py")
    assert (second.code, second.err_lines) == (0, [])
    assert (diff.code, diff.stdout) == (0, "")
    assert (project.root / "service.py").read_text() == FIXED
    # No temporary left (the result cache is the only other entry).
    assert sorted(p.name for p in project.root.iterdir()) == [".ctxlint_cache", "app.py", "service.py"]


def test_fix_keeps_crlf_newlines(project):
    project.write({"service.py": SERVICE.replace("\n", "\r\n").encode(), "app.py": APP})
    assert project.run("check", "--fix", "service.py").code == 0
    assert (project.root / "service.py").read_bytes() == FIXED.replace("\n", "\r\n").encode()
