"""The parts of the game screen, each alone: the game flow (no prompt_toolkit, no disk), the move
line, the chat log and the help view."""

from __future__ import annotations

import subprocess
import sys

import pytest

from cli.app.ai_opponent import AIOpponent
from cli.app.chat import CHAT_KEPT, ChatLog
from cli.app.flow import GameFlow
from cli.app.help_view import HelpView
from cli.app.move_line import MoveLine, yes_no
from cli.app.opponent import Deal, OpponentLeft
from cli.app.score import MatchScore
from engine import TAKE, Card, Move, NotationError


@pytest.mark.net
def test_the_game_flow_loads_no_prompt_toolkit() -> None:
    code = "import sys, cli.app.flow; print('prompt_toolkit' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def flow_at_deal(games: int = 1) -> GameFlow:
    flow = GameFlow(AIOpponent("easy", bytes(32)), MatchScore(games))
    flow.begin(Deal(bytes(32), dealer=1, trumps="SH"), date="2026-12-01 09:00:00 UTC")
    return flow


def test_the_flow_plays_refuses_undoes_and_scores_a_whole_game() -> None:
    flow = flow_at_deal()
    assert flow.game is not None and flow.my_turn and flow.game.headers["Players"] == "You vs AI (easy)"
    assert flow.refusal(TAKE) == "The pile is empty: lay one card on it."
    first = flow.game.position.legal_moves()[0]
    flow.play(first)
    assert not flow.my_turn and flow.undo() == 1 and flow.game.moves == ()
    while flow.game.result is None:
        move = flow.game.position.legal_moves()[0]
        if flow.my_turn:
            assert flow.refusal(move) is None
            flow.play(move)
        else:
            assert flow.play_theirs(move) is None
    prompt = flow.finish()
    assert prompt == "Play again? [Y/n]" and flow.result and flow.match.played == 1
    before = flow.match.session_text("You", "AI")
    flow.next_match()
    assert flow.match.played == 0 and flow.match.session_text("You", "AI") == before


def test_the_flow_names_an_illegal_move_of_the_opponent_and_an_award() -> None:
    flow = flow_at_deal(games=3)
    assert flow.game is not None
    mine = flow.game.position.legal_moves()[0]
    flow.play(mine)
    illegal = next(
        m for m in (Move(c) for c in flow.game.position.hand(0)) if not flow.game.position.is_legal(m)
    )
    assert "played an illegal move" in (flow.play_theirs(illegal) or "")
    assert (
        flow.end(OpponentLeft("AI left after the deal", awarded=0))
        == "AI left after the deal: you win by forfeit."
    )
    assert flow.game is None and flow.match.halves == [2, 0] and flow.match.played == 1


def test_the_quit_question_says_what_quitting_costs() -> None:
    flow = flow_at_deal()
    assert "offers to continue it" in flow.quit_question(resumable=True)
    assert "cannot be continued" in flow.quit_question(resumable=False)


def test_the_move_line_reads_numbers_notation_and_says_what_is_wrong() -> None:
    hand = tuple(Card.parse(c) for c in ("KS", "6H", "TD"))
    line = MoveLine()
    assert line.parse("1 2", hand) == Move.parse("KS,6H") and line.parse("10d", hand) == Move.parse("TD")
    for text, words in (
        ("4", "no card 4"),
        ("1 1", "same card twice"),
        ("1 2 3", "not a move"),
        ("zz", "'zz' is not a card"),
        ("ks,", "not a move"),
        ("take all", "(3 cards now)"),
    ):
        with pytest.raises(NotationError, match=words.replace("(", r"\(").replace(")", r"\)")):
            line.parse(text, hand, take_count=3)


def test_a_held_card_is_written_on_the_line_as_the_board_writes_it_and_reads_back() -> None:
    ten, six = Card.parse("TD"), Card.parse("6H")
    for line, held in ((MoveLine(), "10♦ "), (MoveLine(ascii=True), "10D ")):
        line.hold([ten])
        assert line.buffer.text == line.picked_text() == held  # not the notation's 'TD '
        assert line.parse(held + "6h", (ten, six)) == Move(ten, six) and line.is_take(held + "take")


def test_the_move_line_highlight_shows_at_the_first_arrow() -> None:
    hand = tuple(Card.parse(c) for c in ("KS", "6H", "TD"))
    line = MoveLine()
    line.move_cursor(1, hand)
    assert line.highlighted and line.cursor == 0
    line.move_to_playable(1, hand, {hand[2]})
    assert line.cursor == 2
    line.played()
    assert not line.highlighted


def test_questions_take_words_the_default_and_refuse_others() -> None:
    chosen: list[str] = []
    question = yes_no("Go? [Y/n]", "yes", chosen.append)
    assert (
        question.answer("") == "yes" and question.answer(" N ") == "no" and question.answer("maybe") is None
    )
    assert "Please answer yes/no" in question.reminder()
    line = MoveLine()
    line.ask(question)
    line.buffer.insert_text("y")
    assert line.question is question and line.buffer.text == "y"
    line.clear()
    assert line.question is None and line.buffer.text == ""


def test_the_chat_log_keeps_its_last_lines_and_the_help_view_scrolls() -> None:
    log = ChatLog()
    for n in range(CHAT_KEPT + 5):
        log.add(f"line {n}")
    assert len(log.lines) == CHAT_KEPT and log.last(2) == [f"line {CHAT_KEPT + 3}", f"line {CHAT_KEPT + 4}"]
    assert log.last(0) == []
    view = HelpView()
    view.toggle()
    view.scroll(-3)
    assert view.open and view.top == 0
    view.scroll(5)
    view.toggle()
    assert not view.open and view.top == 0
