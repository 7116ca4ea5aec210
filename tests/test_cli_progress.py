"""What ``trumps host`` and ``trumps join`` write while they run: one writer, lines whole and in
order on a terminal where stdout and stderr meet, and a question's line ended before anything
else is said."""

from __future__ import annotations

import io
import threading
import time

import pytest

from cli.net.progress import Progress


class Terminal:
    """Where both streams of a program on a terminal end up: one screen, written piece by piece
    (slowly, so that two writers would interleave)."""

    def __init__(self) -> None:
        self.screen = ""
        self._lock = threading.Lock()

    def stream(self, tty: bool = False) -> io.TextIOBase:
        terminal = self

        class Stream(io.TextIOBase):
            def isatty(self) -> bool:
                return tty

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


def test_lines_on_a_terminal_break_between_words_and_keep_paths_and_the_invite_whole(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 22, item 12: at 60 columns the terminal broke host and join lines mid-word ("port 4 /
    5541", "Bob's ♣ / ."), record paths and the invite too. On a terminal each line is now broken
    between words at its width; a path, or the command to paste, starts a line of its own, whole;
    a file or a pipe gets the lines as they are."""
    monkeypatch.setenv("COLUMNS", "60")
    invite = "trumps join 127.0.0.1:45541/o7psveaqhzfwcadzylhhcz/us4btzdevfwgmo4mp4tolziwj3fczwnh"
    record = "/tmp/w22/ann3/data/trumps/matches/20261202T161420Z-Bob-31f07969.jsonl"
    said = [
        "Hosting a match of 2 games, forced pick-up, the trump sixes change hands, a draw after"
        " 1000 moves, no AI hints on port 45541; waiting for your friend to join…",
        "Bob won game 1: Bob was out of cards first. You dealt; your trump was ♠, Bob's ♣.",
        f"Record: {record}  (check it with: trumps verify {record})",
    ]
    terminal = Terminal()
    progress = Progress(stream=terminal.stream(tty=True), out=terminal.stream(tty=True))  # type: ignore[arg-type]
    progress.show(f"Send this to your friend:  {invite}")
    for line in said:
        progress.say(line)
    question = "Continue your unfinished match against Bob (game 1, move 4)? [Y/n] "
    progress.prompt(question)
    progress.flush()
    lines = terminal.screen.split("\n")
    assert [line for line in lines if len(line) > 60] == [invite, record, f"trumps verify {record})"]
    words = " ".join([f"Send this to your friend: {invite}", *said, question]).split()
    assert [word for line in lines for word in line.split()] == words  # whole, in order
    assert lines[-1] == "[Y/n] " and lines[-2].endswith("(game 1, move 4)?")  # the answer after its space
    piped = io.StringIO()
    Progress(stream=piped).say(said[0])
    time.sleep(0.2)
    assert piped.getvalue() == said[0] + "\n"
