"""What the full screen says, and that it is all there: questions Ctrl-C cancels, a pasted page,
messages and chat broken between words (never cut), the chat's scrollback, the trump asked before
every deal, the words at the exit, Tab on card numbers, and a large window's layout (issue 22)."""

from __future__ import annotations

from pathlib import Path

import pytest
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document

from cli import i18n, storage
from cli.app import move_entry
from cli.app.board import move_words
from cli.app.completion import MoveCompleter
from cli.app.farewell import farewell
from cli.app.layout import Board
from cli.app.move_line import MOVE_LINE_LENGTH
from cli.app.resume import load_unfinished
from cli.app.saving import Saver
from cli.app.score import MatchScore
from cli.app.screen import GameScreen
from cli.app.widths import cell_width
from engine import Game, Move, Position
from tests.test_cli_app import (
    CTRL_Q,
    ENTER,
    F1,
    SHORT_DEALS_SEED,
    TAB,
    Driver,
    ScriptedOpponent,
    SizedOutput,
    ai_session,
    homes,
    left_unfinished,
    run,
)

pytestmark = pytest.mark.usefixtures("no_fsync")  # saved at every move, never a power cut: see conftest

__all__ = ["homes"]  # the fixture: saved games and config in a temporary home
CTRL_C, PAGE_UP, PAGE_DOWN, END, HOME = "\x03", "\x1b[5~", "\x1b[6~", "\x1b[F", "\x1b[H"


def test_ctrl_c_at_the_quit_question_cancels_it_and_never_forfeits() -> None:
    """Item 2: a second Ctrl-C at "Quit the game? Bob wins it by forfeit. [y/N]" quit, forfeiting."""
    bob = ScriptedOpponent()
    session = GameScreen(bob, MatchScore(), trump="S")

    async def script(d: Driver) -> None:
        await d.until(lambda: session.turns.thinking_since is not None)
        await d.keys(CTRL_C)
        assert session.line.question is not None and "wins it by forfeit" in session.line.question.prompt
        await d.keys(CTRL_C)  # cancels the question: the game goes on
        assert session.line.question is None and session.flow.in_progress and d.app.is_running
        await d.keys(CTRL_C + "y" + ENTER)  # only a yes quits
        await d.until(lambda: not d.app.is_running)

    run(session, script)
    assert bob.closed


def test_ctrl_c_at_the_offer_of_the_unfinished_game_leaves_it_offered() -> None:
    second = ai_session(offer=left_unfinished("S"))

    async def interrupt(d: Driver) -> None:
        assert second.line.question is not None and "Continue your unfinished game" in second.line.question.prompt
        await d.keys(CTRL_C)
        await d.until(lambda: not d.app.is_running)

    run(second, interrupt)
    assert load_unfinished()[0] is not None  # no answer was given: it is offered again


def test_a_pasted_page_says_what_was_cut_and_its_refusal_shows_its_reason() -> None:
    """Item 6: 6,000 pasted characters showed two rows of echo and no word why."""
    session = ai_session(trump="S")

    async def script(d: Driver) -> None:
        await d.my_turn()
        await d.keys("x" * 2000)  # a page, 25 lines of 80: 300 are kept
        assert len(session.line.buffer.text) == MOVE_LINE_LENGTH
        assert "holds 300 characters: the rest of what was pasted is left out" in " ".join(d.screen().split())
        await d.keys(ENTER)
        assert session.error and "is not a card" in session.message
        assert len(session.message) < 100  # the quote is cut, so the reason shows
        assert "a rank 6-10 J Q K A and a suit S H D C." in " ".join(d.screen().split())

    run(session, script)


def test_a_long_notice_and_long_messages_are_broken_never_cut() -> None:
    """Item 7: at 80x24 the chat showed "…it stays in your history, and a new" and no more."""
    notice = (
        "Your unfinished game could not be read (cannot read /home/someone/.local/share/trumps/games/"
        "2026-12-01T18-17-56Z.txt: not a regular file); it stays in your history, and a new game starts."
    )
    for size, words in (((80, 24), 60), ((60, 20), 25)):
        session = ai_session(trump="S", notice=notice)

        async def script(d: Driver, s: GameScreen = session, size: tuple[int, int] = size, words: int = words) -> None:
            await d.my_turn()
            screen = d.screen()
            assert "and a new game starts." in " ".join(screen.split()), screen
            assert len(screen.splitlines()) == size[1] and "Pile" in screen
            s.say("word " * words)  # four lines at 80 columns, three at 60
            assert d.screen().count("word") == words and "Pile" in d.screen()

        run(session, script, SizedOutput(*size))


def test_the_trump_is_asked_before_every_new_game_and_f5() -> None:
    """Item 15: "Play again?" and F5 dealt with the same trumps, never asking."""
    session = ai_session()

    async def script(d: Driver) -> None:
        await d.keys("d" + ENTER)
        await d.my_turn()
        assert session.trump == "D"
        await d.keys("\x0e" + "y" + ENTER)  # Ctrl-N mid-game: abandon, then a new game
        assert session.line.question is not None and "Your trump suit?" in session.line.question.prompt
        assert "[Enter: D, your last choice]" in session.line.question.prompt
        await d.keys("c" + ENTER)
        await d.until(lambda: session.flow.in_progress)
        assert session.flow.game is not None and session.flow.game.start.trumps[session.flow.me] == 3  # ♣
        await d.keys(CTRL_Q + "y" + ENTER)

    run(session, script)


def test_a_resumed_game_shows_the_sessions_running_score() -> None:
    """Item 15: a resumed game showed "You 0 - AI 0" though the session stood at 0-1."""
    session = ai_session(trump="S")

    async def script(d: Driver) -> None:
        await d.my_turn()
        session.flow.match.award(0, 1 - session.flow.me)  # as if the AI had won a game
        session.flow.match = session.flow.match.rematch()  # "Play again?"
        session.save()
        await d.keys(CTRL_Q + "y" + ENTER)

    run(session, script)
    offer, _ = load_unfinished()
    assert offer is not None and offer.match.session_text("You", "AI") == "You 0 - AI 1"


def test_no_exit_is_silent(homes: Path) -> None:
    """Item 13: "n" at "Deal it?" and Ctrl-Q after a finished game said nothing."""
    session = ai_session(trump="S", games=2, seed=SHORT_DEALS_SEED)

    async def script(d: Driver) -> None:
        await d.my_turn()
        while session.line.question is None:
            await d.keys(TAB + ENTER)
            await d.my_turn()
        assert "Deal it?" in session.line.question.prompt
        await d.keys("n" + ENTER)

    run(session, script)
    said = farewell(session.flow, session.saver)
    score = session.flow.match.headline("You", "AI (easy)")
    assert said[0] == f"The match stopped after game 1 of 2: {score}."
    path = session.saver.path
    assert path is not None
    assert said[-1] == f"Your games are saved in {path.parent} (the last one: {path.name}); 'trumps history' lists them."


def test_tab_completes_card_numbers_and_refusals_suggest_only_legal_moves() -> None:
    """Item 16: "5 " Tab said "Nothing legal starts like that"; "9h 10d 7s" was told to try take."""
    session = ai_session()
    # Player 0 (♠ trumps) holds 9♥ J♥ Q♥ K♦, 8♥ is on top: beat, then lay; taking is not allowed
    session.flow.game = Game(Position.from_notation("9HJHQHKD/TC/8H SH 0"))
    completer = MoveCompleter(session)
    hand = session.flow.my_hand()
    shown = [c.text for c in completer.get_completions(Document("1 "), CompleteEvent())]
    assert shown and all(text.startswith("9♥ ") for text in shown)
    assert [c.text for c in completer.get_completions(Document("1 2"), CompleteEvent())] == ["9♥ J♥"]
    assert [c.text for c in completer.get_completions(Document("9"), CompleteEvent())] == []  # no card 9
    move_entry.submit(session, "9h 10d 7s")
    assert "take" not in session.message and "or by card numbers: " in session.message, session.message
    numbers = session.message.rsplit(": ", 1)[1].rstrip(".").split()
    assert Move(*(hand[int(n) - 1] for n in numbers)) in session.flow.game.position.legal_moves()


def test_end_and_home_in_the_help() -> None:
    session = ai_session(trump="S")

    async def script(d: Driver) -> None:
        await d.my_turn()
        await d.keys(F1 + END)
        assert session.help.open and "more below" not in d.screen()
        await d.keys(HOME)
        assert session.help.open and "more below" in d.screen()
        await d.keys(ENTER)

    run(session, script, SizedOutput(80, 24))


def test_a_large_window_shows_the_board_in_its_middle() -> None:
    """Item 16: at 200x60 the move list sat at column ~160 with ~45 empty rows beside the table."""
    session = ai_session(trump="S")

    async def script(d: Driver) -> None:
        await d.my_turn()
        lines = d.screen().splitlines()
        title = next(i for i, line in enumerate(lines) if "Your trumps" in line)
        heading = next(line for line in lines if "Moves" in line)
        assert 30 <= heading.index("│") <= 150 and title >= 5  # in the middle, not along the edges
        assert cell_width(lines[title].strip()) <= 120

    run(session, script, SizedOutput(200, 60))


def test_hindi_agrees_the_verb_with_one_card_or_two() -> None:
    i18n.use("hi")
    try:
        game = Game(Position.from_notation("9HJHQHKD/TC/8H SH 0"))
        game.play("9H,JH")
        assert move_words(game, 1, "एआई").endswith("खेले।")  # two cards
        single = Game(Position.from_notation("9H/TC/- SH 0"))
        single.play("9H")
        assert move_words(single, 1, "एआई").endswith("खेला।")  # one card
    finally:
        i18n.use("en")


def test_board_rows_share_what_is_left_without_cutting() -> None:
    """The message, the status and the chat get the rows they need while the table keeps three."""
    session = ai_session(trump="S")

    async def script(d: Driver) -> None:
        await d.my_turn()
        board = Board(session)
        rows = board.rows()
        assert rows.table >= 3 and rows.chat >= 1

    run(session, script)


def test_saver_keeps_the_sessions_score_in_the_note() -> None:
    match = MatchScore(1).rematch()
    match.earlier = (2, 4)
    game = Game.from_deal(bytes(32), 0, "SH", Players="You vs AI (easy)")
    saver = Saver(keeps_unfinished=True)
    saver.new_game()
    saver.save(game, match, 0, "easy")
    note = storage.load_unfinished()
    assert note is not None and note.earlier == (2, 4) and note.matches == 1


def test_saver_writes_the_note_when_it_changes_not_at_every_move(monkeypatch: pytest.MonkeyPatch) -> None:
    """A move changes the record, not the note: the note is written again only when the match
    moves on (or after it was cleared), and always says where the game stands."""
    written: list[storage.Unfinished] = []
    write = storage.save_unfinished

    def counted(note: storage.Unfinished) -> None:
        written.append(note)
        write(note)

    monkeypatch.setattr(storage, "save_unfinished", counted)
    match = MatchScore(3)
    game = Game.from_deal(bytes(32), 0, "SH", Players="You vs AI (easy)")
    saver = Saver(keeps_unfinished=True)
    record = saver.new_game()
    for _ in range(3):
        game.play(game.position.legal_moves()[0])
        saver.save(game, match, 0, "easy")
        assert Game.from_record(record.read_text(encoding="utf-8")).moves == game.moves  # at every move
    assert len(written) == 1 and storage.load_unfinished() == written[0]
    match.award(0, 0)
    saver.save(game, match, 0, "easy")
    assert len(written) == 2 and storage.load_unfinished() == written[1] and written[1].played == 1
    saver.forget_unfinished()
    saver.save(game, match, 0, "easy")
    assert len(written) == 3 and storage.load_unfinished() == written[1]
