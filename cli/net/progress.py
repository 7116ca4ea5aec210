"""What a duel command says while it runs: one writer for its lines, which never blocks the match."""

from __future__ import annotations

import contextlib
import queue
import shutil
import sys
import threading
import time
from collections.abc import Callable
from typing import TextIO

from cli.cells import cell_width, wrap_words
from cli.i18n import translated
from cli.printable import printable


def _units(text: str) -> list[str]:
    """The words of ``text``, a command to copy (``trumps join INVITE``, ``trumps verify PATH``)
    as one: broken between its words it would not paste as it was meant."""
    words = text.split()
    units: list[str] = []
    while words:
        take = 3 if words[0] == "trumps" and len(words) >= 3 and words[1].isalpha() else 1
        units.append(" ".join(words[:take]))
        del words[:take]
    return units


def terminal_lines(text: str, columns: int) -> str:
    """``text`` broken at spaces into lines of at most ``columns`` cells, so that the terminal
    never breaks a word; a path, an invite or a command to copy that is wider than the rest of a
    line starts a line of its own, whole (wider than a line, the terminal folds it, no space
    added to it). Each line keeps its indent; a line that fits is left as it is.

    >>> print(terminal_lines("Record: /home/ann/matches/x.jsonl  (check it with: trumps verify /home/ann/matches/x.jsonl)", 40))
    Record: /home/ann/matches/x.jsonl (check
    it with:
    trumps verify /home/ann/matches/x.jsonl)
    """
    lines = []
    for line in text.split("\n"):
        if cell_width(line) <= columns:
            lines.append(line)
            continue
        body = line.lstrip(" ")
        indent = line[: len(line) - len(body)]
        parts = wrap_words(_units(body), max(columns - len(indent), 1))
        lines += [indent + part for part in parts]
        lines[-1] += body[len(body.rstrip(" ")) :]  # a question's space before the answer
    return "\n".join(lines)


def _columns(stream: TextIO) -> int | None:
    """The width of the terminal ``stream`` writes to; ``None`` for a file or a pipe (their
    readers break lines as they like)."""
    return shutil.get_terminal_size().columns if stream.isatty() else None


class Progress:
    """The command's lines, written by one thread from a bounded queue, in the order they were
    given: stderr's (:meth:`say`) and stdout's (:meth:`show`: the invite), so that on a terminal,
    where both streams meet, every line stands whole on a line of its own (two writers raced and
    glued the invite to the next message). A stderr that nobody reads makes its lines drop, never
    the match stop (a flood of refused connections is also rate-limited before it gets here:
    :class:`p2p.admission.RefusalLog`). One is made for each command run and handed to whatever
    speaks during it."""

    def __init__(self, capacity: int = 256, stream: TextIO | None = None, out: TextIO | None = None) -> None:
        """``stream`` and ``out``: where :meth:`say` and :meth:`show` write (``sys.stderr`` and
        ``sys.stdout`` as they are when each line is written)."""
        self.stream, self.out = stream, out
        self._lines: queue.Queue[tuple[bool, str, str]] = queue.Queue(capacity)
        self._open = threading.Event()
        """A question stands on stdout with no answer typed after it (no line ended): the next
        line written starts on a line of its own (after Ctrl-C or Ctrl-D there)."""
        threading.Thread(target=self._write, daemon=True).start()

    def say(self, text: object) -> None:
        """Queue ``text`` (translated) for stderr; dropped if the queue is full."""
        with contextlib.suppress(queue.Full):
            self._lines.put_nowait((False, printable(translated(text)), "\n"))  # it may quote the peer

    def show(self, text: object) -> None:
        """Queue ``text`` (translated) for stdout, after what was said before it: never dropped
        (the invite line a friend needs), and written at once when there is no room to wait in."""
        self._put(True, printable(translated(text)), "\n")

    def ask(self, question: object) -> str:
        """The line typed on stdin after ``question`` (translated, on stdout after what was said
        before it), without its end; ``EOFError`` at the end of input (Ctrl-D)."""
        self.prompt(question)
        typed = sys.stdin.readline()
        if not typed:
            raise EOFError
        self.answered(typed)
        return typed.removesuffix("\n")

    def prompt(self, question: object) -> None:
        """Write ``question`` on stdout after what was said before it, the cursor left after it for
        the answer (read by the caller, who passes it to :meth:`answered`)."""
        self._put(True, printable(translated(question)), "")
        self.flush()

    def answered(self, typed: str) -> None:
        """What was typed at the question (with its line's end, if any): a whole line leaves the
        terminal on a new line; anything else (Ctrl-D, Ctrl-C) leaves it after the question."""
        if typed.endswith("\n"):
            self._open.clear()

    def _put(self, out: bool, line: str, end: str) -> None:
        try:
            self._lines.put((out, line, end), timeout=2.0)
        except queue.Full:  # nobody reads stderr: the lines before it wait for ever
            self._print(out, line, end)

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
            out, line, end = self._lines.get()
            self._print(out, line, end)
            self._lines.task_done()

    def _print(self, out: bool, line: str, end: str) -> None:
        """``line`` and its ``end`` in one write, so that nothing written meanwhile gets between
        them; first the end of a question left open (no answer ended its line)."""
        stream = (self.out or sys.stdout) if out else (self.stream or sys.stderr)
        with contextlib.suppress(OSError, ValueError):
            columns = _columns(stream)
            if columns is not None:
                line = terminal_lines(line, columns)
            if self._open.is_set():
                self._open.clear()
                question = self.out or sys.stdout
                question.write("\n")
                question.flush()
            stream.write(line + end)
            stream.flush()
            if not end:
                self._open.set()
