"""Tests for ctxlint.discover: globs, gitignore rules and the file walk."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from projects import write_files

from ctxlint import discover as discover_module
from ctxlint.discover import SKIP_DIRS, DiscoveryError, GitIgnore, discover, glob_match


def repo(tmp_path: Path, files: dict[str, str]) -> Path:
    """A git work tree (a ``.git`` directory marks its top) holding ``files``."""
    root = tmp_path / "repo"
    (root / ".git" / "info").mkdir(parents=True)
    return write_files(root, files)


def found(root: Path, include=("*.j2",), exclude=(), paths=None) -> list[str]:
    """Run discover and return POSIX paths relative to ``root``, in the order returned."""
    result = discover(paths if paths is not None else [root], root, list(include), list(exclude))
    resolved = root.resolve()
    return [p.relative_to(resolved).as_posix() for p in result]


# --- glob_match --------------------------------------------------------------------------

GLOB_CASES = [
    # No "/": the name at any depth.
    ("*.j2", "x.j2", True),
    ("*.j2", "a/b/x.j2", True),
    ("*.j2", "x.j2.bak", False),
    ("*.j2", "x.jinja", False),
    ("*.J2", "x.j2", False),
    ("a.b", "axb", False),
    # A "/" anchors at the root; a leading "/" means the same.
    ("prompts/*.md", "prompts/a.md", True),
    ("prompts/*.md", "x/prompts/a.md", False),
    ("/prompts/*.md", "prompts/a.md", True),
    ("/x.j2", "x.j2", True),
    ("/x.j2", "a/x.j2", False),
    # "*" and "?" never cross "/".
    ("prompts/*.md", "prompts/sub/a.md", False),
    ("p*s/a.md", "pro/ts/a.md", False),
    ("x?y", "x/y", False),
    ("a?.txt", "ab.txt", True),
    ("a?.txt", "abc.txt", False),
    # "**" spans zero or more directories.
    ("prompts/**/*.md", "prompts/a.md", True),
    ("prompts/**/*.md", "prompts/x/y/a.md", True),
    ("prompts/**/*.md", "other/a.md", False),
    ("**/tests/**", "tests/a.py", True),
    ("**/tests/**", "a/b/tests/c/d.py", True),
    ("**/tests/**", "a/tests.py", False),
    ("**/tests/**", "atests/x.py", False),
    ("a/**", "a/b", True),
    ("a/**", "ab/c", False),
    ("**", "a/b/c", True),
    ("a**b", "a/b", False),
    # Classes.
    ("[abc].j2", "b.j2", True),
    ("[abc].j2", "d.j2", False),
    ("[a-c]x", "bx", True),
    ("[a-c]x", "dx", False),
    ("[!abc].j2", "d.j2", True),
    ("[!abc].j2", "a.j2", False),
    ("[]]x", "]x", True),
    ("[z-a]", "a", False),
    ("[ab", "[ab", True),
    # Escapes.
    ("\\*.j2", "*.j2", True),
    ("\\*.j2", "a.j2", False),
    # A pattern matching a parent directory matches everything under it.
    ("legacy/", "legacy/a.j2", True),
    ("legacy", "legacy/a.j2", True),
    ("legacy/", "x/legacy/a.j2", True),
    ("legacy/", "legacy", False),
    ("legacy", "legacy2/a.j2", False),
    ("legacy", "legacy.j2", False),
    ("src/legacy", "src/legacy/a/b.j2", True),
    ("src/legacy", "x/src/legacy/a.j2", False),
    ("prompts/*", "prompts/a/b.md", True),
    # An empty pattern matches nothing.
    ("", "a", False),
]


@pytest.mark.parametrize(("pattern", "relpath", "expected"), GLOB_CASES)
def test_glob_match(pattern, relpath, expected):
    assert glob_match(pattern, relpath) is expected


def test_glob_match_compiles_each_pattern_once(monkeypatch):
    calls = []
    real_compile = re.compile

    def counting(*args, **kwargs):
        calls.append(args[0])
        return real_compile(*args, **kwargs)

    monkeypatch.setattr(re, "compile", counting)
    for name in ("a.once", "b/c.once", "d.txt") * 50:
        glob_match("**/*.once", name)
    assert len(calls) == 1


# --- GitIgnore ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("relpath", "is_dir", "expected"),
    [
        ("cache", True, True),  # "cache/" is directories only
        ("cache", False, False),
        ("a/cache", True, True),
        ("x.log", False, True),
        ("a/b/x.log", False, True),
        ("keep.log", False, False),  # negated after "*.log"
        ("top.j2", False, True),  # "/top.j2" is anchored
        ("a/top.j2", False, False),
        ("doc/gen.j2", False, True),  # a middle "/" anchors too
        ("x/doc/gen.j2", False, False),
        ("#hash.j2", False, True),  # "\#hash.j2"
        ("#comment.j2", False, False),  # "#comment.j2" is a comment
        ("!bang.j2", False, True),  # "\!bang.j2"
        ("trail.j2", False, True),  # "trail.j2   ": trailing spaces stripped
        ("space.j2 ", False, True),  # "space.j2\ ": an escaped space is kept
        ("space.j2", False, False),
        ("a/gen/b/c.j2", False, True),  # "**/gen/**"
        ("plain.j2", False, False),
    ],
)
def test_gitignore_rules(tmp_path, relpath, is_dir, expected):
    root = repo(
        tmp_path,
        {
            ".gitignore": "\n".join(
                [
                    "# a comment",
                    "",
                    "cache/",
                    "*.log",
                    "!keep.log",
                    "/top.j2",
                    "doc/gen.j2",
                    "\\#hash.j2",
                    "#comment.j2",
                    "\\!bang.j2",
                    "trail.j2   ",
                    "space.j2\\ ",
                    "**/gen/**",
                ]
            )
        },
    )
    assert GitIgnore(root).ignored(relpath, is_dir) is expected


def test_gitignore_later_pattern_wins(tmp_path):
    root = repo(tmp_path, {".gitignore": "*.j2\n!keep*.j2\nkeep-no.j2\n"})
    write_files(root, {"other.j2": "", "keep-yes.j2": "", "keep-no.j2": ""})
    assert found(root) == ["keep-yes.j2"]


def test_nested_gitignore_is_relative_to_its_directory(tmp_path):
    root = repo(
        tmp_path,
        {
            ".gitignore": "again.j2\n*.bak.j2\n",
            # "/local.j2" and "deep/x.j2" are anchored at sub/, not at the root.
            "sub/.gitignore": "/local.j2\ndeep/x.j2\n!again.j2\n",
        },
    )
    write_files(
        root,
        {
            "local.j2": "",
            "again.j2": "",
            "x.bak.j2": "",
            "sub/local.j2": "",
            "sub/again.j2": "",
            "sub/y.bak.j2": "",
            "sub/inner/local.j2": "",
            "sub/deep/x.j2": "",
            "deep/x.j2": "",
        },
    )
    assert found(root) == ["deep/x.j2", "local.j2", "sub/again.j2", "sub/inner/local.j2"]


def test_file_under_excluded_directory_cannot_be_reincluded(tmp_path):
    root = repo(tmp_path, {".gitignore": "gone/\n!gone/keep.j2\nhalf/*\n!half/keep.j2\n"})
    write_files(root, {"gone/keep.j2": "", "gone/x.j2": "", "half/keep.j2": "", "half/x.j2": ""})
    # "half/*" ignores the files, not the directory, so the negation can bring one back.
    assert found(root) == ["half/keep.j2"]


def test_directory_only_pattern_spares_files_of_that_name(tmp_path):
    root = repo(tmp_path, {".gitignore": "out.j2/\n"})
    write_files(root, {"out.j2/inside.j2": "", "sub/out.j2": ""})
    assert found(root) == ["sub/out.j2"]


def test_info_exclude_is_read_and_gitignore_overrides_it(tmp_path):
    root = repo(tmp_path, {".git/info/exclude": "*.j2\n", ".gitignore": "!keep.j2\n"})
    write_files(root, {"keep.j2": "", "drop.j2": ""})
    assert found(root) == ["keep.j2"]


def test_gitignore_of_enclosing_repo_applies_below_a_nested_root(tmp_path):
    top = repo(tmp_path, {".gitignore": "secret.j2\n"})
    root = write_files(top / "proj", {"secret.j2": "", "ok.j2": ""})
    assert found(root) == ["ok.j2"]


def test_gitignore_is_honoured_without_git_but_not_above_root(tmp_path):
    write_files(tmp_path, {".gitignore": "*.j2\n"})  # above the root: not ours to read
    root = write_files(tmp_path / "proj", {".gitignore": "drop.j2\n", "drop.j2": "", "ok.j2": ""})
    assert found(root) == ["ok.j2"]


def test_gitignore_star_star_prunes(tmp_path):
    root = repo(tmp_path, {".gitignore": "**/gen/**\n"})
    write_files(root, {"a/gen/x.j2": "", "gen/y.j2": "", "a/generated/z.j2": ""})
    assert found(root) == ["a/generated/z.j2"]


# --- discover: walking -------------------------------------------------------------------


def test_walk_keeps_files_matching_include(tmp_path):
    root = repo(tmp_path, {"a.j2": "", "b.txt": "", "sub/c.j2": "", "sub/d.md": ""})
    assert found(root, include=["*.j2", "sub/*.md"]) == ["a.j2", "sub/c.j2", "sub/d.md"]


@pytest.mark.parametrize("skipped", sorted(SKIP_DIRS))
def test_default_skipped_directories(tmp_path, skipped):
    root = repo(tmp_path, {f"{skipped}/x.j2": "", f"a/{skipped}/y.j2": "", f"{skipped}x/z.j2": ""})
    assert found(root) == [f"{skipped}x/z.j2"]


def test_exclude_by_directory_name_and_star_star(tmp_path):
    root = repo(
        tmp_path,
        {"legacy/a.j2": "", "old/b.j2": "", "x/tests/c.j2": "", "keep.j2": "", "legacyx.j2": ""},
    )
    assert found(root, exclude=["legacy", "old/", "**/tests/**"]) == ["keep.j2", "legacyx.j2"]


def test_pruning_agrees_with_filtering_every_file(tmp_path):
    files = [
        "a.j2", "p/a.j2", "p/q/b.j2", "p/q/r/c.j2", "x/p/d.j2", "tests/e.j2",
        "m/tests/f.j2", "out.j2/g.j2", "z/out.j2/h.j2", "keep/i.j2", "k/l.j2",
    ]  # fmt: skip
    root = repo(tmp_path, dict.fromkeys(files, ""))
    excludes = ["p/q", "**/tests/**", "out.j2/", "*/l.j2", "keep/*", "p/*/r"]
    for pattern in excludes:
        expected = sorted(f for f in files if not glob_match(pattern, f))
        assert found(root, exclude=[pattern]) == expected, pattern


def test_ignored_skipped_and_excluded_directories_are_never_scanned(tmp_path, monkeypatch):
    root = repo(
        tmp_path,
        {".gitignore": "ignored/\n", "ignored/a.j2": "", "node_modules/b.j2": "",
         "excluded/c.j2": "", "kept/d.j2": ""},
    )  # fmt: skip
    scanned = []
    real_scandir = os.scandir

    def spy(path):
        scanned.append(os.path.basename(path))
        return real_scandir(path)

    monkeypatch.setattr(discover_module.os, "scandir", spy)
    assert found(root, exclude=["excluded"]) == ["kept/d.j2"]
    assert sorted(scanned) == ["kept", "repo"]


def test_regexes_are_not_compiled_per_file(tmp_path, monkeypatch):
    files = {f"d{i}/f{j}.j2": "" for i in range(20) for j in range(20)}
    root = repo(tmp_path, {".gitignore": "*.tmp\n", **files})
    calls = []
    real_compile = re.compile
    monkeypatch.setattr(re, "compile", lambda *a, **k: calls.append(a) or real_compile(*a, **k))
    assert len(found(root, include=["*.j2", "fresh-pattern/*"], exclude=["*.nope"])) == 400
    assert len(calls) < 20


def test_symlink_loops_are_not_followed(tmp_path):
    root = repo(tmp_path, {"a/x.j2": "", "real/y.j2": ""})
    (root / "a" / "loop").symlink_to(root, target_is_directory=True)
    (root / "self").symlink_to(".", target_is_directory=True)
    (root / "alias").symlink_to("real", target_is_directory=True)
    assert found(root) == ["a/x.j2", "real/y.j2"]


def test_symlinked_file_is_returned_resolved(tmp_path):
    root = repo(tmp_path, {"shared/t.j2": ""})
    (root / "link.j2").symlink_to(root / "shared" / "t.j2")
    (root / "broken.j2").symlink_to(root / "missing.j2")
    assert found(root, exclude=["shared"]) == ["shared/t.j2"]


def test_explicit_symlinked_directory_is_walked(tmp_path):
    root = repo(tmp_path, {"real/y.j2": ""})
    (root / "alias").symlink_to("real", target_is_directory=True)
    assert found(root, paths=[root / "alias"]) == ["real/y.j2"]


# --- discover: explicit files, errors, results -------------------------------------------


def test_explicit_file_bypasses_include_and_gitignore(tmp_path):
    root = repo(tmp_path, {".gitignore": "ignored.j2\n", "ignored.j2": "", "notes.txt": ""})
    paths = [root / "ignored.j2", root / "notes.txt"]
    assert found(root, paths=paths) == ["ignored.j2", "notes.txt"]


def test_explicit_file_still_obeys_exclude(tmp_path):
    root = repo(tmp_path, {"legacy/a.j2": "", "b.j2": "", "c.j2": ""})
    paths = [root / "legacy" / "a.j2", root / "b.j2", root / "c.j2"]
    assert found(root, exclude=["legacy/", "/b.j2"], paths=paths) == ["c.j2"]


def test_explicit_directory_inside_ignored_directory_is_walked(tmp_path):
    root = repo(tmp_path, {".gitignore": "vendor/\n*.bak.j2\n", "vendor/p/a.j2": "",
                           "vendor/p/b.bak.j2": ""})  # fmt: skip
    assert found(root, paths=[root / "vendor" / "p"]) == ["vendor/p/a.j2"]


def test_missing_path_raises_discovery_error(tmp_path):
    root = repo(tmp_path, {"a.j2": ""})
    missing = root / "nope.j2"
    with pytest.raises(DiscoveryError) as info:
        discover([root / "a.j2", missing], root, ["*.j2"], [])
    assert info.value.path == str(missing)
    assert str(missing) in str(info.value) and "no such file" in str(info.value)


def test_relative_arguments_give_absolute_resolved_paths(tmp_path, monkeypatch):
    root = repo(tmp_path, {"p/a.j2": "", "b.j2": ""})
    monkeypatch.chdir(root / "p")
    result = discover(["..", "a.j2"], Path(".."), ["*.j2"], [])
    assert result == [(root / "b.j2").resolve(), (root / "p" / "a.j2").resolve()]
    assert all(p.is_absolute() for p in result)


def test_results_are_sorted_and_deduplicated(tmp_path):
    root = repo(tmp_path, {name: "" for name in ("b.j2", "a/z.j2", "c/a.j2", "A.j2", "a.j2")})
    first = found(root, paths=[root / "c", root, root / "a" / "z.j2", root])
    second = found(root, paths=[root / "a" / "z.j2", root / "c", root])
    # Path order compares component by component, so a directory's files stay together.
    assert first == second == ["A.j2", "a/z.j2", "a.j2", "b.j2", "c/a.j2"]


def test_paths_outside_root_match_relative_to_their_argument(tmp_path):
    root = repo(tmp_path, {"a.j2": ""})
    other = write_files(tmp_path / "other", {"sub/x.j2": "", "sub/y.j2": "", "top.j2": "", "n.md": ""})
    # The directory argument is the base: "/sub/x.j2" is anchored there, not at root.
    walked = discover([other], root, ["*.j2"], ["/sub/x.j2"])
    assert walked == [(other / "sub/y.j2").resolve(), (other / "top.j2").resolve()]
    # A file outside root is matched by its name.
    assert discover([other / "n.md"], root, [], ["n.md"]) == []
    assert discover([other / "top.j2"], root, [], ["n.md"]) == [(other / "top.j2").resolve()]
