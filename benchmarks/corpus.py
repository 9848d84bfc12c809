"""Precision on real code: run ctxlint over the development corpus and score it against verdicts.

    python benchmarks/corpus.py extract --mirror MIRROR SNAPSHOTS   # once: write the pinned snapshots
    python benchmarks/corpus.py SNAPSHOTS [--repo NAME ...] [--unjudged FILE] [--save FILE]
    python benchmarks/corpus.py --load FILE [--markdown FILE] [--update-rules]  # score a saved run again
    python benchmarks/corpus.py --held-out ...   # the same over benchmarks/held_out/, kept out of development

The corpus is the list of public repositories in benchmarks/corpus.yaml, each pinned by commit.
`extract` writes each one's files at that commit into SNAPSHOTS/<owner>+<name>/ from a git
directory (MIRROR/<owner>+<name>/repo, as the `fetch` tool leaves them); the snapshots never
enter this repository.

Scoring runs `ctxlint check --confidence low --preview` in each snapshot, so every finding any
setting can show is scored, and matches findings to the hand-judged verdicts in
benchmarks/judged/<owner>+<name>.csv by (path, line, code). It prints:

  - precision per rule and overall for what a plain `ctxlint check` reports (rules on by
    default, confidence medium or high), and apart for what `--confidence low` and `--preview`
    add;
  - precision per rule at the default confidence, preview rules included: the measure that
    decides whether a rule is on by default (`--markdown FILE` writes it as the README's table,
    `--update-rules` into each rule file's `precision:` line, which `ctxlint rule CODE` shows);
  - findings judged true that no longer fire, unless benchmarks/judged/lost.csv gives the
    reason they may go;
  - findings nobody has judged yet (`--unjudged FILE` writes them as CSV rows with an empty
    verdict, to judge by reading the code at each one and then move into judged/).

A verdict is `true` (a careful engineer would act on it: the claim is right about this code and
it matters) or `false` (the claim is wrong, or right about code where it cannot matter), with a
one-line reason in our own words. Exit status: 0, or 1 with --strict when a default rule is
under 90%, a judged-true finding is lost without a reason, or a default finding is unjudged.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import subprocess
import sys
from collections import defaultdict
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import census
import yaml

ROOT = Path(__file__).resolve().parent.parent
HERE = Path(__file__).resolve().parent
JUDGED = HERE / "judged"
PINS = HERE / "corpus.yaml"
# Repositories kept out of development: no rule, example or mechanism was written looking at
# them, so what ctxlint finds there is what it finds on code nobody tuned it for. Their pins,
# census and verdicts live apart, in the same shapes (`--held-out`).
HELD_OUT = HERE / "held_out"
COLUMNS = ["repo", "commit", "path", "line", "code", "verdict", "reason"]
STAMP = ".corpus-commit"
TARGET = 0.90
# true: worth acting on; false: wrong; debatable: right but of little value (a one-off script).
# Strict precision counts debatable against, lenient leaves it out (../shared/CENSUS.md).
VERDICTS = ("true", "false", "debatable")


@dataclass(frozen=True)
class Pin:
    repo: str
    commit: str

    @property
    def folder(self) -> str:
        return self.repo.replace("/", "+")


def pins() -> list[Pin]:
    data = yaml.safe_load(PINS.read_text(encoding="utf-8"))
    return [Pin(entry["repo"], entry["commit"]) for entry in data["repositories"]]


# --- extract ---------------------------------------------------------------------------------


def extract(mirror: Path, snapshots: Path) -> int:
    """Write every pinned repository's files at its commit; blobs the mirror lacks are skipped."""
    for pin in pins():
        git_dir = mirror / pin.folder / "repo"
        if not git_dir.is_dir():
            print(f"{pin.repo}: no git directory at {git_dir}; fetch it first", file=sys.stderr)
            return 2
        target = snapshots / pin.folder
        if (target / STAMP).is_file() and (target / STAMP).read_text().strip() == pin.commit:
            print(f"{pin.repo}: already extracted at {pin.commit[:12]}")
            continue
        written, missing = _extract_tree(git_dir, pin.commit, target)
        (target / STAMP).write_text(pin.commit + "\n")
        print(f"{pin.repo}: {written} files at {pin.commit[:12]} ({missing} absent from the snapshot)")
    return 0


def _extract_tree(git_dir: Path, commit: str, target: Path) -> tuple[int, int]:
    git = ["git", f"--git-dir={git_dir}"]
    listing = subprocess.run([*git, "ls-tree", "-r", "-z", commit], capture_output=True, check=True).stdout
    blobs = []
    for entry in filter(None, listing.split(b"\0")):
        meta, path = entry.split(b"\t", 1)
        mode, kind, sha = meta.split()
        if kind == b"blob" and mode != b"120000":  # symlinks are not followed into the snapshot
            blobs.append((sha, os.fsdecode(path)))
    written = missing = 0
    with subprocess.Popen([*git, "cat-file", "--batch"], stdin=subprocess.PIPE, stdout=subprocess.PIPE) as cat:
        assert cat.stdin is not None and cat.stdout is not None
        for sha, path in blobs:
            cat.stdin.write(sha + b"\n")
            cat.stdin.flush()
            header = cat.stdout.readline().split()
            if header[-1] == b"missing":
                missing += 1
                continue
            data = cat.stdout.read(int(header[2]))
            cat.stdout.read(1)
            destination = target / path
            destination.parent.mkdir(parents=True, exist_ok=True)
            destination.write_bytes(data)
            written += 1
    return written, missing


# --- score -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Found:
    repo: str
    path: str
    line: int
    code: str
    confidence: str
    message: str
    # Where the finding's evidence steps are (path, line): the census matches them too.
    places: tuple[tuple[str, int], ...] = ()
    kind: str = ""  # the kind of evidence the finding rests on (DESIGN: confidence per kind)
    scope: str = "code"  # or test, example: code run by hand or by a test runner, not for users

    @property
    def evidence_kind(self) -> str:
        """What the kind table groups by: the rule and kind in code, the scope elsewhere."""
        return f"{self.code}/{self.kind}" if self.scope == "code" else f"in {self.scope} code"

    @property
    def key(self) -> tuple[str, str, int, str]:
        return (self.repo, self.path, self.line, self.code)


def run_ctxlint(snapshot: Path, repo: str) -> list[Found]:
    # the ctxlint under test: a worktree's when PYTHONPATH names one, else this checkout's
    # PYTHONSAFEPATH: `-m` would otherwise put the snapshot first on the import path, and a repository
    # with a `types.py` at its top (simple-evals) shadows the standard library before ctxlint starts
    env = {**os.environ, "PYTHONPATH": os.environ.get("PYTHONPATH") or str(ROOT), "PYTHONSAFEPATH": "1"}
    proc = subprocess.run(
        [sys.executable, "-m", "ctxlint.cli", "check", ".", "--output-format", "json", "--exit-zero",
         "--confidence", "low", "--preview", "--no-cache"],
        cwd=snapshot, capture_output=True, text=True, encoding="utf-8", env=env)
    if proc.returncode != 0:
        raise SystemExit(f"{repo}: ctxlint exited {proc.returncode}: {proc.stderr.strip()[-2000:]}")
    return [Found(repo, f["path"], f["line"], f["code"], f["confidence"], f["message"],
                  tuple((e["path"], e["line"]) for e in f.get("evidence", ()) if e.get("path") and e.get("line")),
                  f.get("kind") or "", f.get("scope") or "code")
            for f in json.loads(proc.stdout)]


def load_verdicts() -> dict[tuple[str, str, int, str], dict]:
    verdicts = {}
    for path in sorted(JUDGED.glob("*.csv")):
        if path.name == "lost.csv":
            continue
        with path.open(encoding="utf-8", newline="") as handle:
            for row in csv.DictReader(handle):
                if row["verdict"] not in VERDICTS:
                    raise SystemExit(f"{path}: verdict must be one of {', '.join(VERDICTS)}, not {row['verdict']!r}")
                verdicts[(row["repo"], row["path"], int(row["line"]), row["code"])] = row
    return verdicts


def load_lost() -> dict[tuple[str, str, int, str], str]:
    path = JUDGED / "lost.csv"
    if not path.is_file():
        return {}
    with path.open(encoding="utf-8", newline="") as handle:
        return {(r["repo"], r["path"], int(r["line"]), r["code"]): r["reason"] for r in csv.DictReader(handle)}


def score(snapshots: Path | None, only: list[str], unjudged_out: Path | None, strict: bool,
          save: Path | None = None, load: Path | None = None, markdown: Path | None = None,
          update_rules: bool = False, missed_out: Path | None = None) -> int:
    sys.path.insert(0, str(ROOT))
    from ctxlint.catalogue import load_catalogue

    catalogue = load_catalogue()
    selected = [p for p in pins() if not only or p.repo in only or p.folder in only]
    found: list[Found] = []
    if load is not None:  # a saved run: judge, then score again without linting the corpus again
        found = [Found(**{**item, "places": tuple(tuple(p) for p in item.get("places", ()))})
                 for item in json.loads(load.read_text(encoding="utf-8")) if item["repo"] in {p.repo for p in selected}]
    else:
        assert snapshots is not None
        for pin in selected:
            snapshot = snapshots / pin.folder
            stamp = snapshot / STAMP
            if not stamp.is_file() or stamp.read_text().strip() != pin.commit:
                raise SystemExit(f"{snapshot}: not extracted at {pin.commit[:12]}; run `corpus.py extract` first")
            found += run_ctxlint(snapshot, pin.repo)
    if save is not None:
        save.write_text(json.dumps([vars(f) for f in found], indent=1), encoding="utf-8")
    verdicts = load_verdicts()
    commits = {p.repo: p.commit for p in selected}

    def default(f: Found) -> bool:
        rule = catalogue.get(f.code)
        return f.confidence in ("high", "medium") and rule is not None and not rule.preview

    shown = [f for f in found if default(f)]
    _table("What `ctxlint check` reports (default rules, confidence medium or high)", shown, verdicts, catalogue)
    _table("What `--confidence low` and `--preview` add", [f for f in found if not default(f)], verdicts, catalogue)
    # The measure that decides whether a rule is on by default: what it reports at the default
    # confidence, whether or not it is a preview rule today.
    each_rule = [f for f in found if f.confidence in ("high", "medium")]
    _table("Each rule at confidence medium or high, preview rules included", each_rule, verdicts, catalogue)
    _kinds_table(found, verdicts)
    if markdown is not None:
        markdown.write_text(_markdown(each_rule, verdicts, catalogue), encoding="utf-8")
        print(f"wrote {markdown}")
    if update_rules:
        _update_rules(each_rule, found, verdicts, catalogue, len(selected))

    instances = census.load(commits)
    if instances:
        print(f"\nRecall on the census ({len(instances)} instances in {len({i.repo for i in instances})} repositories)")
        print("\n".join(census.table(instances, found, default)))
        print("\nRecall over the census instances confirmed true (benchmarks/census/checked/)")
        print("\n".join(census.confirmed_table(instances, found, default, verdicts)))
        not_found = census.missed(instances, found, default)
        if missed_out is not None:
            with missed_out.open("w", encoding="utf-8", newline="") as handle:
                writer = csv.writer(handle)
                writer.writerow(["repo", "path", "line", "class", "sentence"])
                for i in not_found:
                    writer.writerow([i.repo, i.path, i.line, i.cls, i.sentence])
            print(f"wrote {missed_out}")

    wrong = [f for f in shown if verdicts.get(f.key, {}).get("verdict") in ("false", "debatable")]
    print(f"\nJudged false or debatable and still reported by default: {len(wrong)}")
    for f in wrong[:60]:
        print(f"  {f.repo} {f.path}:{f.line} {f.code} [{verdicts[f.key]['verdict']}] ({verdicts[f.key]['reason']})")

    current = {f.key for f in found}
    lost_reasons = load_lost()
    lost = [k for k, row in verdicts.items() if row["verdict"] == "true" and k[0] in commits
            and k not in current and k not in lost_reasons]
    print(f"\nJudged true and no longer reported, with no reason in judged/lost.csv: {len(lost)}")
    for repo, path, line, code in lost:
        print(f"  {repo} {path}:{line} {code} ({verdicts[(repo, path, line, code)]['reason']})")

    unjudged = [f for f in found if f.key not in verdicts]
    print(f"\nNot judged yet: {len(unjudged)} ({sum(default(f) for f in unjudged)} of them reported by default)")
    for f in unjudged[:40]:
        print(f"  {f.repo} {f.path}:{f.line} {f.code} [{f.confidence}] {f.message[:110]}")
    if len(unjudged) > 40:
        print(f"  ... and {len(unjudged) - 40} more (--unjudged FILE writes them all)")
    if unjudged_out is not None:
        with unjudged_out.open("w", encoding="utf-8", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow([*COLUMNS, "confidence", "kind", "message"])
            for f in unjudged:
                writer.writerow([f.repo, commits[f.repo], f.path, f.line, f.code, "", "", f.confidence, f.kind,
                                 f.message])
        print(f"wrote {unjudged_out}")

    if not strict:
        return 0
    weak = [code for code, tally in _tally(shown, verdicts, lambda f: f.code).items()
            if tally.judged and tally.strict < TARGET]
    return 1 if weak or lost or any(default(f) for f in unjudged) else 0


@dataclass
class Tally:
    found: int = 0
    judged: int = 0
    true: int = 0
    debatable: int = 0

    @property
    def strict(self) -> float:
        """Debatable counts against."""
        return self.true / self.judged if self.judged else 0.0

    def cells(self) -> tuple[str, str]:
        """Strict and lenient precision (debatable left out), or dashes when nothing is judged."""
        if not self.judged:
            return "-", "-"
        decided = self.judged - self.debatable
        return f"{self.strict:.0%}", (f"{self.true / decided:.0%}" if decided else "-")


def _tally(findings: list[Found], verdicts: dict, group) -> dict[str, Tally]:
    tallies: dict[str, Tally] = defaultdict(Tally)
    for f in findings:
        tally = tallies[group(f)]
        tally.found += 1
        row = verdicts.get(f.key)
        if row is not None:
            tally.judged += 1
            tally.true += row["verdict"] == "true"
            tally.debatable += row["verdict"] == "debatable"
    return dict(sorted(tallies.items()))


def _kinds_table(findings: list[Found], verdicts: dict) -> None:
    """Precision per kind of evidence, at every confidence: what calibrates each kind's confidence."""
    print("\nEach kind of evidence, at every confidence (strict: debatable counts against)")
    print(f"  {'kind':<40} {'found':>6} {'judged':>7} {'true':>5} {'debat.':>6} {'strict':>7} {'lenient':>8}")
    for kind, tally in _tally([f for f in findings if f.kind], verdicts, lambda f: f.evidence_kind).items():
        strict, lenient = tally.cells()
        print(f"  {kind:<40} {tally.found:>6} {tally.judged:>7} {tally.true:>5} {tally.debatable:>6} {strict:>7} "
              f"{lenient:>8}")


def _markdown(findings: list[Found], verdicts: dict, catalogue: dict) -> str:
    """The README's precision table: every rule of the catalogue, measured or not."""
    per_rule = _tally(findings, verdicts, lambda f: f.code)
    lines = ["| rule | name | status | found | judged | true | debatable | strict | lenient |",
             "|---|---|---|---:|---:|---:|---:|---:|---:|"]
    for code in sorted(catalogue):
        rule = catalogue[code]
        tally = per_rule.get(code, Tally())
        strict, lenient = tally.cells()
        status = "preview" if rule.preview else "default"
        lines.append(f"| {code} | {rule.name} | {status} | {tally.found} | {tally.judged} | {tally.true} | "
                     f"{tally.debatable} | {strict} | {lenient} |")
    return "\n".join(lines) + "\n"


def _update_rules(findings: list[Found], every: list[Found], verdicts: dict, catalogue: dict,
                  repositories: int) -> None:
    """Write each built-in rule's measured precision (``findings``: those shown at the default
    confidence) into its rule file's `precision:` line, and each kind's (``every``: all of them)
    into its `evidence:` line."""
    per_rule = _tally(findings, verdicts, lambda f: f.code)
    per_kind = _tally([f for f in every if f.kind], verdicts, lambda f: f.evidence_kind)
    found_in = {code: len({f.repo for f in findings if f.code == code}) for code in per_rule}
    today = date.today().isoformat()
    for code, rule in sorted(catalogue.items()):
        if not rule.path.is_relative_to(ROOT / "rules"):
            continue
        tally = per_rule.get(code, Tally())
        if tally.judged:
            value = (f"{tally.strict:.0%}: {tally.true} of {tally.judged} judged findings at confidence medium or "
                     f"high were right ({tally.debatable} debatable), in {found_in[code]} of {repositories} corpus "
                     f"repositories ({today})")
        else:
            value = (f"not measured: no findings at confidence medium or high in {repositories} corpus "
                     f"repositories ({today})")
        text = rule.path.read_text(encoding="utf-8")
        line = f"precision: {json.dumps(value)}\n"
        lines = text.splitlines(keepends=True)
        at = next((i for i, old in enumerate(lines) if old.startswith("precision:")), None)
        if at is None:
            at = next(i for i, old in enumerate(lines) if old.startswith("severity:")) + 1
            lines.insert(at, line)
        else:
            lines[at] = line
        lines = [_measured_kind(old, code, per_kind) for old in lines]
        rule.path.write_text("".join(lines), encoding="utf-8")
    print("updated the precision line and the evidence kinds' `measured` of every built-in rule file")


_KIND_LINE = re.compile(r"^(  ([\w-]+): \{confidence: \w+, says: \"(?:[^\"\\]|\\.)*\")(?:, measured: \"[^\"]*\")?\}\n$")


def _measured_kind(line: str, code: str, per_kind: dict) -> str:
    """An `evidence:` line of a rule file with the kind's measured precision (judged findings in
    code that runs for users, at any confidence), or as it was when the kind has no verdict."""
    match = _KIND_LINE.match(line)
    tally = per_kind.get(f"{code}/{match[2]}") if match else None
    if match is None or tally is None or not tally.judged:
        return line
    debatable = f", {tally.debatable} debatable" if tally.debatable else ""
    measured = f"{tally.true} of {tally.judged} right{debatable} ({tally.strict:.0%})"
    return f"{match[1]}, measured: \"{measured}\"}}\n"


def _table(title: str, findings: list[Found], verdicts: dict, catalogue: dict) -> None:
    print(f"\n{title}")
    per_rule = _tally(findings, verdicts, lambda f: f.code)
    repos: dict[str, set[str]] = defaultdict(set)
    for f in findings:
        repos[f.code].add(f.repo)
    print(f"  {'rule':<8} {'name':<32} {'found':>6} {'judged':>7} {'true':>5} {'debat.':>6} {'strict':>7} "
          f"{'lenient':>8} {'repos':>6}")
    total = Tally()
    for code, tally in per_rule.items():
        for name in ("found", "judged", "true", "debatable"):
            setattr(total, name, getattr(total, name) + getattr(tally, name))
        name = catalogue[code].name if code in catalogue else "?"
        strict, lenient = tally.cells()
        print(f"  {code:<8} {name:<32} {tally.found:>6} {tally.judged:>7} {tally.true:>5} {tally.debatable:>6} "
              f"{strict:>7} {lenient:>8} {len(repos[code]):>6}")
    strict, lenient = total.cells()
    print(f"  {'all':<8} {'':<32} {total.found:>6} {total.judged:>7} {total.true:>5} {total.debatable:>6} "
          f"{strict:>7} {lenient:>8} {len({f.repo for f in findings}):>6}")


def use_held_out() -> None:
    """Score the held-out repositories instead of the development corpus."""
    global JUDGED, PINS
    JUDGED, PINS = HELD_OUT / "judged", HELD_OUT / "corpus.yaml"
    census.CENSUS = HELD_OUT / "census"
    census.CHECKED = census.CENSUS / "checked"


def main(argv: list[str] | None = None) -> int:
    args = list(argv if argv is not None else sys.argv[1:])
    if "--held-out" in args:
        args.remove("--held-out")
        use_held_out()
        if "--update-rules" in args or "--markdown" in args:
            raise SystemExit("--held-out scores the held-out repositories apart: the rule files and the README "
                             "table are measured on the development corpus")
    if args and args[0] == "extract":
        parser = argparse.ArgumentParser(prog="corpus.py extract")
        parser.add_argument("--mirror", type=Path, required=True, help="folder of <owner>+<name>/repo git directories")
        parser.add_argument("snapshots", type=Path, help="where to write the snapshots")
        options = parser.parse_args(args[1:])
        return extract(options.mirror, options.snapshots)
    parser = argparse.ArgumentParser(prog="corpus.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("snapshots", type=Path, nargs="?", help="the folder `corpus.py extract` wrote")
    parser.add_argument("--repo", action="append", default=[], help="only this repository (owner/name), repeatable")
    parser.add_argument("--unjudged", type=Path, metavar="FILE", help="write the unjudged findings to FILE as CSV")
    parser.add_argument("--missed", type=Path, metavar="FILE",
                        help="write the census instances a plain run does not report to FILE as CSV")
    parser.add_argument("--strict", action="store_true", help="exit 1 when a target is missed")
    parser.add_argument("--save", type=Path, metavar="FILE", help="also write every finding of this run to FILE (JSON)")
    parser.add_argument("--load", type=Path, metavar="FILE",
                        help="score the findings saved by --save instead of linting")
    parser.add_argument("--update-rules", action="store_true",
                        help="write each rule's measured precision into its rule file (`precision:`)")
    parser.add_argument("--markdown", type=Path, metavar="FILE",
                        help="write the per-rule precision table (every rule, at the default confidence) as Markdown")
    options = parser.parse_args(args)
    if (options.snapshots is None) == (options.load is None):
        parser.error("give SNAPSHOTS to lint the corpus, or --load FILE to score a saved run")
    return score(options.snapshots, options.repo, options.unjudged, options.strict, options.save, options.load,
                 options.markdown, options.update_rules, options.missed)


if __name__ == "__main__":
    sys.exit(main())
