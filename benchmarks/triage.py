"""Work lists from saved corpus runs (`corpus.py ... --save RUN.json`), for deciding what to mend next.

    python benchmarks/triage.py [--held-out] lists RUN.json OUTDIR
    python benchmarks/triage.py [--held-out] diff OLD.json NEW.json

`lists` writes, into OUTDIR:
  - missed-<class>.csv: the census instances of each class a plain `ctxlint check` does not
    report, with the second reader's verdict and reason beside each (the `true` ones first: those
    are the misses that matter);
  - nontrue-<code>.csv: each rule's default findings judged false or debatable, with the reason
    (the false ones first).

`diff` prints what a change did between two saved runs: default findings added and gone (with
their verdict where there is one) and census instances newly found or lost.

Both read the pins, verdicts and census of the development corpus, or of the held-out look with
`--held-out`, as `corpus.py` does.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from collections.abc import Callable
from pathlib import Path

import census
import corpus

sys.path.insert(0, str(corpus.ROOT))
from ctxlint.catalogue import load_catalogue  # noqa: E402  (the checkout beside these scripts)

# The second reader's verdicts in the order a reader of the list wants them.
_CHECKED_ORDER = {"true": 0, "": 1, "debatable": 2, "false": 3}


def load_run(path: Path) -> list[corpus.Found]:
    repos = {pin.repo for pin in corpus.pins()}
    return [corpus.Found(**{**item, "places": tuple(tuple(p) for p in item.get("places", ()))})
            for item in json.loads(path.read_text(encoding="utf-8")) if item["repo"] in repos]


def shown_by_default() -> Callable[[corpus.Found], bool]:
    catalogue = load_catalogue()

    def shown(finding: corpus.Found) -> bool:
        rule = catalogue.get(finding.code)
        return finding.confidence in ("high", "medium") and rule is not None and not rule.preview
    return shown


def checked_rows() -> dict[tuple[str, str, int, str], tuple[str, str]]:
    rows = {}
    for path in sorted(census.CHECKED.glob("*.csv")):
        with path.open(encoding="utf-8", newline="") as handle:
            for row in csv.DictReader(handle):
                rows[(row["repo"], row["path"], int(row["line"]), row["class"])] = (row["verdict"], row["reason"])
    return rows


def write_lists(run: Path, out: Path) -> None:
    found, shown = load_run(run), shown_by_default()
    instances = census.load({pin.repo for pin in corpus.pins()})
    missed = census.missed(instances, found, shown)
    checked = checked_rows()
    out.mkdir(parents=True, exist_ok=True)
    for cls in census.CLASSES:
        rows = [(i, *checked.get((i.repo, i.path, i.line, i.cls), ("", ""))) for i in missed if i.cls == cls]
        rows.sort(key=lambda row: (_CHECKED_ORDER[row[1]], row[0].repo, row[0].path, row[0].line))
        with (out / f"missed-{cls}.csv").open("w", encoding="utf-8", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(["repo", "path", "line", "class", "checked", "checked_reason", "sentence"])
            writer.writerows([i.repo, i.path, i.line, i.cls, verdict, reason, i.sentence]
                             for i, verdict, reason in rows)
        print(f"class {cls}: {len(rows)} missed, {sum(row[1] == 'true' for row in rows)} of them checked true")
    verdicts = corpus.load_verdicts()
    by_rule: dict[str, list[corpus.Found]] = {}
    for finding in found:
        if shown(finding) and verdicts.get(finding.key, {}).get("verdict") in ("false", "debatable"):
            by_rule.setdefault(finding.code, []).append(finding)
    for code, findings in sorted(by_rule.items()):
        findings.sort(key=lambda f: (verdicts[f.key]["verdict"] != "false", f.repo, f.path, f.line))
        with (out / f"nontrue-{code}.csv").open("w", encoding="utf-8", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(["repo", "path", "line", "code", "verdict", "reason", "message"])
            writer.writerows([f.repo, f.path, f.line, f.code, verdicts[f.key]["verdict"], verdicts[f.key]["reason"],
                              f.message] for f in findings)
        print(f"{code}: {len(findings)} default findings judged false or debatable")


def print_diff(old_run: Path, new_run: Path) -> None:
    shown = shown_by_default()
    old = {f.key: f for f in load_run(old_run) if shown(f)}
    new = {f.key: f for f in load_run(new_run) if shown(f)}
    verdicts = corpus.load_verdicts()
    for title, keys, side in (("added", new.keys() - old.keys(), new), ("gone", old.keys() - new.keys(), old)):
        print(f"default findings {title}: {len(keys)}")
        for key in sorted(keys):
            verdict = verdicts.get(key, {}).get("verdict", "unjudged")
            print(f"  {key[0]} {key[1]}:{key[2]} {key[3]} [{verdict}] {side[key].message[:100]}")
    instances = census.load({pin.repo for pin in corpus.pins()})
    before = census.found_by(instances, list(old.values()))
    after = census.found_by(instances, list(new.values()))
    for title, want in (("census instances newly found", True), ("census instances lost", False)):
        changed = [i for i in instances if after[i] == want and before[i] != want]
        print(f"{title}: {len(changed)}")
        for i in changed:
            print(f"  {i.repo} {i.path}:{i.line} ({i.cls}) {i.sentence[:100]}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="triage.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--held-out", action="store_true", help="the held-out look instead of the development corpus")
    commands = parser.add_subparsers(dest="command", required=True)
    lists = commands.add_parser("lists", help="missed census instances per class, non-true findings per rule")
    lists.add_argument("run", type=Path)
    lists.add_argument("out", type=Path)
    diff = commands.add_parser("diff", help="what changed between two saved runs")
    diff.add_argument("old", type=Path)
    diff.add_argument("new", type=Path)
    options = parser.parse_args(argv)
    if options.held_out:
        corpus.use_held_out()
    if options.command == "lists":
        write_lists(options.run, options.out)
    else:
        print_diff(options.old, options.new)
    return 0


if __name__ == "__main__":
    sys.exit(main())
