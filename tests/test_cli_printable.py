"""Text from outside reaches the terminal only as text: escape sequences, line breaks and bidi
overrides from a peer, a record or a file name are shown as placeholders, never obeyed — in
``trumps verify``, ``trumps history``, the full screen and the stderr lines of ``host``/``join``."""

from __future__ import annotations

import io
import json
import unicodedata
from pathlib import Path

import pytest

from cli.app.score import MatchScore
from cli.app.screen import GameScreen
from cli.home import Home
from cli.main import main
from cli.printable import printable
from engine import Rules
from p2p.handshake import Terms
from tests.support.peers import Side
from tests.test_cli_app import Driver, ScriptedOpponent, run
from tests.test_p2p_evidence import handshake_session, play

EVIL = "\x1b[1A\x1b[2K\r\u202e\x9b2J\x07"
"""Cursor up, erase the line, back to its start, right-to-left override, a C1 CSI, a bell."""
FAKE_COMPLETE = "\ncomplete: score 0 - 2; every signature checks, both players signed the end"


@pytest.fixture(scope="module")
def record_text(tmp_path_factory: pytest.TempPathFactory) -> str:
    root = tmp_path_factory.mktemp("keys")
    ann, bob = Side.make(root, "ann"), Side.make(root, "bob")
    session = handshake_session(ann, bob, Terms(Rules(), 1))
    return play(session, (ann.me.key, bob.me.key), root).read_text()


def _obeyable(text: str) -> list[str]:
    """The characters of ``text`` that a terminal would act on rather than show (newlines aside)."""
    return [c for c in text if c != "\n" and (unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp"))]


@pytest.mark.parametrize("text", [EVIL, FAKE_COMPLETE, "a\tb\x00c\x7fd\u2066e\u200bf\ud800"])
def test_printable_leaves_nothing_a_terminal_obeys(text: str) -> None:
    shown = printable(text)
    assert _obeyable(shown) == [] and "\n" not in shown
    assert len(shown) == len(text)  # one visible placeholder per character: nothing hidden either


def test_verify_shows_a_hostile_end_note_without_obeying_it(
    record_text: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The note tries to erase the INCOMPLETE line and print a "complete" line of its own."""
    lines = record_text.splitlines()
    note = {"end": "cheat", "detail": f"bob cheated{EVIL}{FAKE_COMPLETE}", "by": 1,  # an "end" of its own fails
            "game": f"1{EVIL}", "winner": 0}  # fmt: skip
    path = tmp_path / "hostile.jsonl"
    path.write_text("\n".join([*lines[:20], json.dumps(note)]) + "\n")
    assert main(["verify", str(path)]) == 1
    out = capsys.readouterr().out
    assert _obeyable(out) == []
    assert not any(line.startswith("complete") for line in out.splitlines())
    assert out.splitlines()[-1 - _key_lines(out)].startswith("the saver awards game 1␛[1A")
    assert "INCOMPLETE: the record stops" in out
    assert "the saver's note: cheat: bob cheated␛[1A␛[2K␍�" in out and "␊complete: score 0 - 2" in out


def _key_lines(out: str) -> int:
    return sum(1 for line in out.splitlines() if "known peers" in line or "your own key" in line)


def test_verify_failure_names_the_file_harmlessly(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / f"x{EVIL}.jsonl"
    path.write_text("{}\n")
    assert main(["verify", str(path)]) == 2
    err = capsys.readouterr().err
    assert _obeyable(err) == [] and "x␛[1A" in err


def test_history_shows_hostile_file_names_harmlessly(capsys: pytest.CaptureFixture[str]) -> None:
    folder = Home.default().records
    folder.mkdir(parents=True)
    (folder / f"20261130T101500Z-{EVIL}.jsonl").write_text("{}\n")
    assert main(["history"]) == 0
    out = capsys.readouterr().out
    assert _obeyable(out) == [] and "unreadable" in out


def test_host_and_join_lines_on_stderr_are_made_harmless() -> None:
    from cli.net.progress import Progress

    stream = io.StringIO()
    progress = Progress(stream=stream)
    progress.say(f"bob says: {EVIL}")
    progress.flush()
    assert stream.getvalue() == "bob says: ␛[1A␛[2K␍��2J␇\n"


def test_the_full_screen_shows_hostile_chat_and_status_as_text() -> None:
    """(Names with such characters cannot reach the screen: the wire and the game record refuse
    them; :func:`cli.app.names.shown_name` still passes every name through :func:`printable`.)"""
    bob = ScriptedOpponent()
    screen = GameScreen(bob, MatchScore(), trump="S")

    async def script(d: Driver) -> None:
        await d.until(lambda: screen.flow.game is not None)
        bob.table.chat(f"Bob: hi{EVIL}")
        bob.table.status(f"Bob silent for 8 s{EVIL}")
        shown = d.screen()
        assert _obeyable(shown) == []
        assert "Bob: hi␛[1A␛[2K␍��2J␇" in shown
        assert "Bob silent for 8 s␛[1A" in shown

    run(screen, script)


def test_the_games_own_words_pass_unchanged() -> None:
    """printable() is applied to whole translated lines: no translation may hold a character it
    would replace (a zero-width joiner in a Hindi string, say), or our own text would be mangled."""
    from tests.catalogues import PLURAL_FORMS, po_path, read_po

    for language in PLURAL_FORMS:
        _, messages = read_po(po_path(language))
        for message in messages.values():
            for text in [message.msgid, *message.strings]:
                lines = text.split("\n")
                assert [printable(line) for line in lines] == lines, (language, text)
