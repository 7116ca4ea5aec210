"""What a duel command says while it runs: lines for stderr that never block the match."""

from __future__ import annotations

import contextlib
import queue
import sys
import threading
import time
from collections.abc import Callable
from typing import TextIO

from cli.i18n import translated
from cli.printable import printable


class Progress:
    """Lines for stderr, written by a thread from a bounded queue: a pipe that nobody reads
    makes lines drop, never the match stop (a flood of refused connections is also rate-limited
    before it gets here: :class:`p2p.admission.RefusalLog`). One is made for each command run
    and handed to whatever speaks during it."""

    def __init__(self, capacity: int = 256, stream: TextIO | None = None) -> None:
        """``stream``: where the lines go (``sys.stderr`` as it is when each line is written)."""
        self.stream = stream
        self._lines: queue.Queue[str] = queue.Queue(capacity)
        threading.Thread(target=self._write, daemon=True).start()

    def say(self, text: object) -> None:
        """Queue ``text`` (translated) for stderr; dropped if the queue is full."""
        with contextlib.suppress(queue.Full):
            self._lines.put_nowait(printable(translated(text)))  # it may quote the peer

    def flush(self, timeout: float = 2.0) -> None:
        """Wait (a little) until what was queued is written."""
        end = time.monotonic() + timeout
        while self._lines.unfinished_tasks and time.monotonic() < end:
            time.sleep(0.01)

    def status(self) -> Callable[[str], None]:
        """Shows a duel's status lines, skipping those that differ only in their numbers (countdowns)."""
        last = [""]

        def show(text: str) -> None:
            shape = "".join(c for c in text if not c.isdigit())
            if text and shape != last[0]:
                self.say(text)
            last[0] = shape

        return show

    def _write(self) -> None:
        while True:
            line = self._lines.get()
            with contextlib.suppress(OSError, ValueError):
                print(line, file=self.stream or sys.stderr, flush=True)
            self._lines.task_done()
