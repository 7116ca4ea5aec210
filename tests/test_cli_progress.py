"""What ``trumps host`` and ``trumps join`` write while they run: one writer, lines whole and in
order on a terminal where stdout and stderr meet, and a question's line ended before anything
else is said."""

from __future__ import annotations

import io
import threading
import time

from cli.net.progress import Progress


class Terminal:
    """Where both streams of a program on a terminal end up: one screen, written piece by piece
    (slowly, so that two writers would interleave)."""

    def __init__(self) -> None:
        self.screen = ""
        self._lock = threading.Lock()

    def stream(self) -> io.TextIOBase:
        terminal = self

        class Stream(io.TextIOBase):
            def write(self, text: str) -> int:
                for char in text:
                    with terminal._lock:
                        terminal.screen += char
                    time.sleep(0.0002)
                return len(text)

        return Stream()


def test_the_invite_stands_on_a_line_of_its_own_among_the_other_lines() -> None:
    """Issue 22, item 1: the invite (stdout) and the progress lines (stderr) went through two
    writers, and a restarted host glued the invite to the next line."""
    terminal = Terminal()
    progress = Progress(stream=terminal.stream(), out=terminal.stream())  # type: ignore[arg-type]
    invite = "Send this to your friend:  trumps join 127.0.0.1:47111/abc/def"
    progress.say("Resuming…")
    progress.show(invite)
    progress.say("Continuing the unfinished match with Bob (game 1, after move 6)…")
    progress.flush()
    assert terminal.screen.splitlines() == [
        "Resuming…", invite, "Continuing the unfinished match with Bob (game 1, after move 6)…"
    ]


def test_what_follows_a_question_left_unanswered_starts_on_a_new_line() -> None:
    """Issue 22, item 16: Ctrl-C (or Ctrl-D) at a question ended no line, and the reason stood
    glued to it: ``[y/N] ^Ctrumps join: …``."""
    terminal = Terminal()
    progress = Progress(stream=terminal.stream(), out=terminal.stream())  # type: ignore[arg-type]
    progress.prompt("Accept these rules? [y/N] ")
    progress.answered("")  # Ctrl-D: nothing typed, no line ended
    progress.say("trumps join: you declined the host's rules")
    progress.flush()
    assert terminal.screen == "Accept these rules? [y/N] \ntrumps join: you declined the host's rules\n"
    terminal.screen = ""
    progress.prompt("Join which one? [1-2] ")
    progress.answered("2\n")  # Enter ended the line: nothing to add
    progress.say("Connecting…")
    progress.flush()
    assert terminal.screen == "Join which one? [1-2] Connecting…\n"


def test_progress_lines_never_block_on_a_pipe_nobody_reads() -> None:
    """Flaw 8: a headless host's stderr may be a pipe nobody reads. Its lines go through a bounded
    queue written by a thread: once the pipe is full they are dropped, and the caller (the event
    loop) never waits. 5000 lines are far more than a pipe holds."""
    import os
    import threading

    from cli.net.progress import Progress

    read_end, write_end = os.pipe()
    progress = Progress(capacity=16, stream=os.fdopen(write_end, "w"))

    def say_lines() -> None:
        for _ in range(5000):
            progress.say("x" * 100)

    caller = threading.Thread(target=say_lines)
    caller.start()
    caller.join(30)
    assert not caller.is_alive()
    os.close(read_end)
