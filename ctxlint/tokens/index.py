"""Exact token counts without loading the whole vocabulary: for runs that count a few texts.

Building a tiktoken encoding means decoding 200,000 BPE ranks and handing them to tiktoken's
Rust core: about 0.35 s and 80 MB, which is most of what a pre-commit run over one template
used to cost. But byte-pair encoding a piece of text only ever looks up byte strings inside that
piece. So the vocabulary is written once to an indexed SQLite file in the user's cache
directory, and a count looks up only the substrings of its text, builds a tiktoken encoding of
just those tokens (plus the 256 single bytes) and counts with it. The result is exactly
tiktoken's: the same core, the same pattern, the same ranks for every string it consults.

The pieces tiktoken's pattern cuts are never known here, so candidates are taken from a coarser
split that no piece crosses. In both the o200k_base and the cl100k_base pattern a piece holds
whitespace only at its start (one character before a word or punctuation), as a run of
whitespace, or as line breaks after punctuation; so no piece contains a non-whitespace
character followed by whitespace other than a line break. Cutting the text at exactly those
places gives chunks that each hold whole pieces, and every substring of a piece is a substring
of a chunk. Whitespace is Unicode's White_Space, as in tiktoken's regex engine, not Python's
(which counts a few control characters as whitespace).

When the text is large, its chunks long (prose without spaces, such as Chinese) or a run has
already counted much or built many subset encodings, :func:`count` returns None and the caller
loads the full encoding, which is then faster. The index is checked against the SHA-256 of the
data it was built from, built atomically, and rebuilt (or skipped) when missing or unreadable;
nothing depends on it being there.
"""

from __future__ import annotations

import os
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import sqlite3

    import tiktoken

INDEX_VERSION = 1
ENVIRONMENT = "CTXLINT_TOKENIZER_CACHE"  # where the index lives; "off" disables it
# Unicode White_Space (what `\s` means to tiktoken's regex engine).
_WHITE = "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
_CUT = re.compile(f"(?<=[^{_WHITE}])(?=[{_WHITE.replace(chr(10), '').replace(chr(13), '')}])")
# Beyond these, loading the full encoding once is cheaper than looking pieces up.
_MAX_CANDIDATES_PER_TEXT = 150_000
_MAX_CANDIDATES_PER_RUN = 600_000
# Each text that brings new tokens builds a new subset encoding of every token seen so far, and
# each build also compiles the pattern again (about as long as 5,000 tokens take). Once the builds
# add up to a whole vocabulary's worth, the full encoding is cheaper (a run over a 1 MB catalogue
# built 1,094 subsets, 9 s, where loading the full encoding takes 0.35 s).
_MAX_TOKENS_BUILT_PER_RUN = 200_000
BUILD_OVERHEAD_TOKENS = 5_000
_QUERY_BATCH = 900  # below SQLite's oldest limit on bound parameters


@dataclass
class _Index:
    database: sqlite3.Connection
    longest: int  # the longest token, in bytes
    ranks: dict[bytes, int]  # the tokens looked up so far, single bytes included
    looked_up: set[bytes] = field(default_factory=set)
    expanded: set[str] = field(default_factory=set)  # chunks whose candidates are all in looked_up
    encoding: tiktoken.Encoding | None = None
    spent: int = 0  # candidates looked at so far in this process
    built: int = 0  # the cost of the subset encodings built so far in this process, in tokens


_indexes: dict[str, _Index | None] = {}


def count(text: str, name: str) -> int | None:
    """Exact tokens of ``text`` in encoding ``name``, or None when the full encoding should be
    loaded instead (no index, or too much text for this way to pay)."""
    if not text:
        return 0
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates: tiktoken counts them as U+FFFD, so do we
        text = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    index = _indexes.get(name, ...)
    if index is ...:
        index = _indexes[name] = _open(name)
    if index is None:
        return None
    taken = _candidates(text, index.longest, index.expanded)
    if taken is None:
        return None
    candidates, chunks = taken
    if index.spent + len(candidates) > _MAX_CANDIDATES_PER_RUN:
        return None
    index.spent += len(candidates)
    new = [c for c in candidates if c not in index.looked_up]
    if new or index.encoding is None:
        import sqlite3

        try:
            found = _look_up(index.database, new)
        except sqlite3.Error:  # a damaged index must never cost a count: use the full encoding
            _indexes[name] = None
            return None
        index.looked_up.update(new)
        if found or index.encoding is None:
            index.ranks.update(found)
            index.built += BUILD_OVERHEAD_TOKENS + len(index.ranks)
            if index.built > _MAX_TOKENS_BUILT_PER_RUN:  # done for this run: its subset is now stale
                _indexes[name] = None
                return None
            index.encoding = _encoding(name, index.ranks)
    index.expanded.update(chunks)
    return len(index.encoding.encode_ordinary(text))


def _candidates(text: str, longest: int, expanded: set[str]) -> tuple[set[bytes], set[str]] | None:
    """Every substring of two bytes or more, up to ``longest``, of every chunk of ``text`` not in
    ``expanded`` (chunks an earlier count looked up: a word recurs in text after text), and the
    chunks it took them from. The bound on one text's work counts every chunk, as if none had
    been seen."""
    out: set[bytes] = set()
    chunks: set[str] = set()
    work = 0
    for chunk in _CUT.split(text):
        data = chunk.encode("utf-8")
        size = len(data)
        work += size * min(size, longest)
        if work > _MAX_CANDIDATES_PER_TEXT:
            return None
        if chunk in expanded or chunk in chunks:
            continue
        chunks.add(chunk)
        for start in range(size - 1):
            end = min(size, start + longest)
            out.update(data[start:stop] for stop in range(start + 2, end + 1))
    return out, chunks


def _look_up(database: sqlite3.Connection, candidates: list[bytes]) -> dict[bytes, int]:
    found: dict[bytes, int] = {}
    for first in range(0, len(candidates), _QUERY_BATCH):
        batch = candidates[first : first + _QUERY_BATCH]
        marks = ",".join("?" * len(batch))
        found.update(database.execute(f"SELECT token, rank FROM vocab WHERE token IN ({marks})", batch))
    return found


def _encoding(name: str, ranks: dict[bytes, int]) -> tiktoken.Encoding:
    import tiktoken

    from ctxlint.tokens.encodings import encoding_spec

    return tiktoken.Encoding(f"{name}-subset", pat_str=encoding_spec(name).pat_str, mergeable_ranks=ranks,
                             special_tokens={})


def _directory() -> Path | None:
    configured = os.environ.get(ENVIRONMENT)
    if configured == "off":
        return None
    if configured:
        return Path(configured)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "ctxlint"


def _open(name: str) -> _Index | None:
    """The index of encoding ``name``, built on first use; None when it cannot be had."""
    try:
        import sqlite3
    except ImportError:  # Python built without SQLite
        return None
    from ctxlint.tokens.encodings import encoding_spec

    directory = _directory()
    if directory is None:
        return None
    sha = encoding_spec(name).sha256
    path = directory / f"tokenizer-{name}-{sha[:16]}-v{INDEX_VERSION}.sqlite"
    for attempt in (1, 2):
        if path.is_file():
            try:
                database = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True, check_same_thread=False)
                meta = dict(database.execute("SELECT key, value FROM meta"))
                if meta.get("sha256") == sha and meta.get("version") == str(INDEX_VERSION):
                    # Every single byte is a token: the pieces' merges start from them.
                    singles = dict(database.execute("SELECT token, rank FROM vocab WHERE length(token) = 1"))
                    if len(singles) == 256:
                        return _Index(database, int(meta["longest"]), singles)
                database.close()
            except (sqlite3.Error, KeyError, ValueError):
                pass
        if attempt == 1 and not _build(name, path):
            return None
    return None


def _build(name: str, path: Path) -> bool:
    """Write the index of ``name`` from the verified BPE data; False when it cannot be written."""
    import sqlite3

    from ctxlint.tokens.encodings import encoding_spec, load_ranks

    spec = encoding_spec(name)
    ranks = load_ranks(name)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        os.close(handle)
    except OSError:
        return False
    try:
        database = sqlite3.connect(temporary)
        with database:
            database.execute("CREATE TABLE vocab (token BLOB PRIMARY KEY, rank INTEGER NOT NULL) WITHOUT ROWID")
            database.executemany("INSERT INTO vocab VALUES (?, ?)", sorted(ranks.items()))
            database.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
            database.executemany("INSERT INTO meta VALUES (?, ?)", [
                ("sha256", spec.sha256), ("version", str(INDEX_VERSION)),
                ("longest", str(max(len(token) for token in ranks))), ("tokens", str(len(ranks))),
            ])
        database.close()
        os.replace(temporary, path)
        return True
    except (OSError, sqlite3.Error):
        return False
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)
