"""Recall on the census: of the instances reviewers found by reading the code, how many ctxlint reports.

The census (benchmarks/census/<owner>+<name>.csv, one row per instance: repo, commit, path, line,
class, sentence) is made by a reader who has not seen ctxlint's output on that repository
(../shared/CENSUS.md). An instance counts as found when a finding of one of its class's rules is
in the same file within a few lines of it, or names it as a step of its evidence (a finding in a
template whose source is the Python line the census names).

The census and the verdicts on findings were made by different readers, and a census instance is
not always one a verdict would call true (a date that changes once a day, a heading above a
pasted document). So a second reader applies the verdict standard to the census instances a run
missed (benchmarks/census/checked/<owner>+<name>.csv: repo, commit, path, line, class, verdict,
reason), and recall is also given over the instances confirmed true: those the second reader
judged true, and those a default finding judged true reports.
"""

from __future__ import annotations

import csv
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

HERE = Path(__file__).resolve().parent
CENSUS = HERE / "census"
CHECKED = CENSUS / "checked"
CLASSES = {
    "a": ("clock or id before static text", ("CTX101", "CTX102")),
    "b": ("unstable order or serialization", ("CTX103", "CTX104")),
    "c": ("no output limit", ("CTX201",)),
    "d": ("untrusted content unlabelled or in system", ("CTX401", "CTX402", "CTX403")),
    "e": ("constraint in a truncated region", ("CTX301", "CTX206")),
    "f": ("oversized tool or catalogue", ("CTX501", "CTX502", "CTX503", "CTX504")),
    "g": ("silent truncation or len/4", ("CTX204", "CTX205")),
}
# How far apart (in lines) a finding and the instance it reports may be: a call spans lines, and
# a reader and a rule may point at different lines of one statement.
NEAR = 3


@dataclass(frozen=True)
class Instance:
    repo: str
    path: str
    line: int
    cls: str
    sentence: str


class Located(Protocol):
    repo: str
    path: str
    line: int
    code: str
    places: tuple[tuple[str, int], ...]

    @property
    def key(self) -> tuple[str, str, int, str]: ...


def load(repos: Iterable[str] | None = None) -> list[Instance]:
    wanted = set(repos) if repos is not None else None
    found = []
    for path in sorted(CENSUS.glob("*.csv")):
        with path.open(encoding="utf-8", newline="") as handle:
            for row in csv.DictReader(handle):
                if row["class"] not in CLASSES:
                    raise SystemExit(f"{path}: unknown class {row['class']!r}")
                if wanted is None or row["repo"] in wanted:
                    found.append(Instance(row["repo"], row["path"], int(row["line"]), row["class"], row["sentence"]))
    return found


def matches(instance: Instance, finding: Located) -> bool:
    if finding.repo != instance.repo or finding.code not in CLASSES[instance.cls][1]:
        return False
    return any(path == instance.path and abs(line - instance.line) <= NEAR
               for path, line in ((finding.path, finding.line), *finding.places))


def found_by(census: list[Instance], findings: list[Located]) -> dict[Instance, bool]:
    by_repo: dict[str, list[Located]] = {}
    for finding in findings:
        by_repo.setdefault(finding.repo, []).append(finding)
    return {i: any(matches(i, f) for f in by_repo.get(i.repo, ())) for i in census}


def table(census: list[Instance], findings: list[Located], shown: Callable[[Located], bool]) -> list[str]:
    """Recall per class, for what a plain run shows (``shown``) and with everything on."""
    default = found_by(census, [f for f in findings if shown(f)])
    everything = found_by(census, findings)
    lines = ["| class | what | instances | found by default | recall | with everything on | recall |",
             "|---|---|---:|---:|---:|---:|---:|"]
    for cls, (what, _) in CLASSES.items():
        items = [i for i in census if i.cls == cls]
        if not items:
            continue
        hit, all_hit = sum(default[i] for i in items), sum(everything[i] for i in items)
        lines.append(f"| {cls} | {what} | {len(items)} | {hit} | {hit / len(items):.0%} | {all_hit} | "
                     f"{all_hit / len(items):.0%} |")
    hit, all_hit = sum(default.values()), sum(everything.values())
    total = len(census) or 1
    lines.append(f"| all | | {len(census)} | {hit} | {hit / total:.0%} | {all_hit} | {all_hit / total:.0%} |")
    return lines


def missed(census: list[Instance], findings: list[Located], shown: Callable[[Located], bool]) -> list[Instance]:
    default = found_by(census, [f for f in findings if shown(f)])
    return [i for i in census if not default[i]]


def load_checked() -> dict[tuple[str, str, int, str], str]:
    """The second reader's verdict on each checked instance, by (repo, path, line, class)."""
    checked = {}
    for path in sorted(CHECKED.glob("*.csv")):
        with path.open(encoding="utf-8", newline="") as handle:
            for row in csv.DictReader(handle):
                if row["verdict"] not in ("true", "false", "debatable"):
                    raise SystemExit(f"{path}: verdict must be true, false or debatable, not {row['verdict']!r}")
                checked[(row["repo"], row["path"], int(row["line"]), row["class"])] = row["verdict"]
    return checked


def confirmed_table(census: list[Instance], findings: list[Located], shown: Callable[[Located], bool],
                    verdicts: dict[tuple[str, str, int, str], dict]) -> list[str]:
    """Recall over the instances confirmed true: a second reader's verdict where there is one,
    else the verdict on a default finding that reports the instance. An instance with neither
    (missed by a later run and not checked yet) is counted apart, as unchecked."""
    checked = load_checked()
    default = [f for f in findings if shown(f)]
    found = found_by(census, default)
    judged_true = found_by(census, [f for f in default if verdicts.get(f.key, {}).get("verdict") == "true"])
    lines = ["| class | instances | checked false | checked debatable | unchecked | confirmed true | "
             "found by default | recall |", "|---|---:|---:|---:|---:|---:|---:|---:|"]
    totals = [0] * 6
    for cls in CLASSES:
        items = [i for i in census if i.cls == cls]
        if not items:
            continue
        said = [checked.get((i.repo, i.path, i.line, i.cls)) for i in items]
        true = [i for i, v in zip(items, said, strict=True) if v == "true" or (v is None and judged_true[i])]
        row = [len(items), said.count("false"), said.count("debatable"),
               sum(v is None and not judged_true[i] for i, v in zip(items, said, strict=True)), len(true),
               sum(found[i] for i in true)]
        totals = [t + r for t, r in zip(totals, row, strict=True)]
        lines.append(f"| {cls} | " + " | ".join(map(str, row)) + f" | {row[5] / (row[4] or 1):.0%} |")
    lines.append("| all | " + " | ".join(map(str, totals)) + f" | {totals[5] / (totals[4] or 1):.0%} |")
    return lines
