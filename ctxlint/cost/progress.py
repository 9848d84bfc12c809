"""A progress line on stderr for a person watching a long ``ctxlint cost`` run."""

from __future__ import annotations

import os
import sys
import time
from typing import TextIO


class Progress:
    """One updating line on stderr while files are read, only for a person watching a terminal.

    Nothing is written when the stream is not a terminal (piped, redirected, captured), when
    ``CI`` is set, or for ``threshold`` files or fewer. The line is erased when done, so the
    terminal is left as the report found it; the report itself never goes to this stream.
    """

    THRESHOLD = 20  # files: below this a run takes well under a second
    INTERVAL = 0.1  # seconds between redraws

    def __init__(self, total: int, label: str, stream: TextIO | None = None, threshold: int = THRESHOLD):
        self.total = total
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = total > threshold and _is_terminal(self.stream) and not _in_ci()
        self._last = 0.0
        self._width = 0

    def update(self, done: int) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if done < self.total and done and now - self._last < self.INTERVAL:
            return
        self._last = now
        line = f"{self.label}: {done:,}/{self.total:,} files"
        self.stream.write("\r" + line.ljust(self._width))
        self.stream.flush()
        self._width = len(line)

    def close(self) -> None:
        if self.enabled and self._width:
            self.stream.write("\r" + " " * self._width + "\r")
            self.stream.flush()
            self._width = 0


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # a closed or unusual stream
        return False


def _in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")
