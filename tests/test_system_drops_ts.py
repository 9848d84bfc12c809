"""A JavaScript compressor that rebuilds the request without the system prompt on one branch
(typescript/system_drops.py): the finding is at the return, with where the system prompt was taken."""

from __future__ import annotations

from pathlib import Path

from projects import reported_json

COMPRESSOR = '''\
function compress(messages, limits) {
  const system = messages.shift();
  const user = messages.pop();
  if (user.content.length > limits.user) {
    return [{ role: "user", content: user.content.slice(-limits.user) + " [start cut]" }];
  }
  return [system, ...messages.slice(-6), user];
}

function compressString(llm, promptArgs) {
  const { systemPrompt } = promptArgs;
  if (promptArgs.userPrompt.length > llm.limit) {
    return llm.constructPrompt({ userPrompt: promptArgs.userPrompt });
  }
  return llm.constructPrompt({ systemPrompt, userPrompt: promptArgs.userPrompt });
}

module.exports = { compress, compressString };
'''


def test_each_branch_without_the_system_prompt_is_reported_at_its_return(tmp_path: Path) -> None:
    found = reported_json(tmp_path, "compress.js", COMPRESSOR, "CTX301")
    assert [(f["code"], f["line"], f["column"], f["kind"]) for f in found] == [
        ("CTX301", 5, 12, "system-dropped"), ("CTX301", 13, 12, "system-dropped")]
    assert found[0]["message"] == (
        "This return rebuilds a list of messages without the system message `system` took off `messages`: on this "
        "branch the model gets none of the system prompt's instructions, and nothing says they were left out.")
    assert found[1]["message"].startswith("This return rebuilds the request without the `systemPrompt` of "
                                          "`promptArgs` that another call of the builder is given")
    steps = [[(e["kind"], e["text"], e["line"]) for e in f["evidence"][1:-1]] for f in found]
    assert steps == [[("flow", "`system` holds the system prompt, taken from `messages`", 2)],
                     [("flow", "`systemPrompt` holds the system prompt, taken from `promptArgs`", 11)]]


CUTTER = '''\
function middleOut({ input = "", size = 0, enc }) {
  if (!input || !size) return input;
  const pieces = enc.encode(input);
  const head = pieces.slice(0, size / 2);
  const tail = pieces.slice(pieces.length - size / 2);
  return enc.decode(head) + "\\n--cut--\\n" + enc.decode(tail);
}

function fit(llm, promptArgs, enc) {
  const system = promptArgs.systemPrompt;
  const user = promptArgs.userPrompt;
  const shortened = middleOut({ input: system, size: llm.systemLimit, enc });
  return llm.constructPrompt({ systemPrompt: shortened, userPrompt: user });
}

function fitUser(llm, promptArgs, enc) {
  const system = promptArgs.systemPrompt;
  const question = middleOut({ input: promptArgs.userPrompt, size: 900, enc });
  return llm.constructPrompt({ systemPrompt: system, userPrompt: question });
}

module.exports = { fit, fitUser };
'''


def test_the_system_prompt_given_to_a_helper_that_cuts_it_is_reported_at_the_call(tmp_path: Path) -> None:
    [found] = reported_json(tmp_path, "fit.js", CUTTER, "CTX301")
    assert (found["code"], found["line"], found["column"], found["kind"]) == ("CTX301", 12, 21, "system-cut")
    assert found["message"] == (
        "`middleOut({ input: system, size: llm.systemLimit, enc })` cuts the system prompt `system` to a size: "
        "whatever instructions sit in the part cut out are gone on the long requests where the cut runs.")
    steps = [(e["kind"], e["text"], e["line"]) for e in found["evidence"][1:-1]]
    assert steps == [("flow", "`system` holds the system prompt, taken from `promptArgs`", 10),
                     ("flow", "`middleOut` returns the text rebuilt from a slice of its pieces (fit.js:4)", 4)]
