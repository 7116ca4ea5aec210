"""The coach in the app: the analysis after a game (progress, verdicts, ←/→ through the mistakes,
saved for the replay), the hint that says why, and the replay showing a saved analysis."""

from __future__ import annotations

import functools
import json
import re
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from cli import i18n
from cli.analysis_file import analysis_path, load_analysis, save_analysis
from cli.app import coach as coach_module
from cli.app.cards import move_text
from cli.app.coach import Coach
from cli.app.replay import Replay
from cli.app.score import MatchScore
from cli.app.screen import GameScreen
from cli.coach_words import advice_words, standing_words, turning_words, verdict_words
from cli.commands.replay import _analysis
from engine import Game, Move, Position, deal
from engine.ai import Advice, advise, choose
from engine.ai.analysis import DOUBTFUL, ESTIMATED_MISTAKE, WIN_TO_LOSS, Verdict, analyze
from engine.ai.proof import DRAW, LOSS, WIN
from tests.test_cli_app import (
    ENTER,
    F2,
    LEFT,
    RIGHT,
    SHORT_DEALS_SEED,
    Driver,
    ScriptedOpponent,
    SizedOutput,
    ai_session,
    homes,
    replay_screens,
    run,
)

pytestmark = pytest.mark.usefixtures("no_fsync")  # saved at every move, never a power cut: see conftest

__all__ = ["homes"]  # the fixture: a temporary home

F6, HOME, END, ESC = "\x1b[17~", "\x1b[H", "\x1b[F", "\x1b"
UP, DOWN, PAGE_UP = "\x1b[A", "\x1b[B", "\x1b[5~"
MOVES = ("QH,KD", "take", "9H", "QH,TC", "take", "KD", "take", "8H")  # QH,KD throws the win away
NODES = 20_000
ESTIMATE_NODES = 3_000


def lost_game() -> Game:
    """A small finished game in which "You" (seat 0) turned a win into a loss with the first move."""
    game = Game(Position.from_notation("9HJHQHKD/TC/8H SH 0"), {"Players": "You vs AI (easy)"})
    for move in MOVES:
        game.play(move)
    return game


def test_the_analysis_opens_after_the_game_runs_and_is_saved(homes: Path) -> None:
    session = ai_session(trump="S", seed=SHORT_DEALS_SEED)
    session.coach = Coach(nodes=2_000)
    seen: dict[str, str] = {}

    async def script(d: Driver) -> None:
        await d.my_turn()
        seen["playing"] = d.screen()
        await d.keys(F6)
        seen["refused"] = session.message
        played = await d.play_out()
        seen["over"] = d.screen()
        await d.keys(F6)
        assert session.coach.open
        seen["running"] = d.screen()
        await d.until(lambda: session.coach.complete)
        seen["done"] = d.screen()
        seen["count"] = f"{len(session.coach.verdicts)} {played}"
        await d.keys("x" + ENTER)  # typing does not reach the hidden move line
        seen["typed"] = session.line.buffer.text
        await d.keys(ESC)
        seen["closed"] = d.screen()

    run(session, script)
    assert "F6" not in seen["playing"] and "Analysis" not in seen["playing"]
    assert seen["refused"] == "The analysis opens once the game is over."
    assert "F6 Analysis" in seen["over"]
    assert "Analysing your moves" in seen["running"] or "Analysis" in seen["running"]
    verdicts, played = seen["count"].split()
    assert verdicts == played and int(played) > 0  # a verdict on each of the player's moves
    assert seen["done"].startswith(" Analysis │") and re.search(
        r"In your moves: \d+ proven mistakes?|No proven mistake and no doubtful move", seen["done"]
    )
    assert "Esc close" in seen["done"] and seen["typed"] == ""
    assert "Play again?" in seen["closed"]  # back to the game's end
    record = session.saver.path
    assert record is not None and analysis_path(str(record)).exists()
    game = Game.from_record(record.read_text(encoding="utf-8"))
    assert len(load_analysis(analysis_path(str(record)), game)) == int(played)


def test_left_and_right_step_through_the_mistakes_on_the_board() -> None:
    session = ai_session(trump="S")
    session.coach = Coach(nodes=NODES)
    seen: list[str] = []

    async def script(d: Driver) -> None:
        await d.my_turn()
        session.flow.game = lost_game()  # as if this game had just been played
        await d.keys(F6)
        await d.until(lambda: session.coach.complete)
        seen.append(d.screen())
        await d.keys(RIGHT)
        seen.append(d.screen())
        await d.keys(LEFT + LEFT + END)
        seen.append(f"{session.coach.at}")
        await d.keys(HOME)
        seen.append(f"{session.coach.at}")

    run(session, script, SizedOutput(80, 24))
    summary, mistake, at_end, at_first = seen
    assert "In your moves: 1 proven mistake. ←/→ go through it." in summary
    assert "Q♥ K♦ ??" in summary or "Q♥,K♦ ??" in summary  # the move log marks it
    assert "Move 1 of 8: You played" in mistake and "turned a win into a loss; better:" in mistake
    assert "Marked move 1 of 1: proven mistake." in mistake
    assert (at_end, at_first) == ("None", "0")


def test_the_analysis_screen_at_60x20_breaks_its_progress_between_words_and_shows_every_key(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    release = threading.Event()

    def analyzing(*args: object, **kwargs: object) -> Iterator[Verdict]:
        release.wait(10)  # still at work while the screen is looked at
        yield from ()

    monkeypatch.setattr(coach_module, "analyze", analyzing)
    session = ai_session(trump="S")
    seen: list[str] = []

    async def script(d: Driver) -> None:
        await d.my_turn()
        session.flow.game = lost_game()
        await d.keys(F6)
        await d.until(lambda: session.coach.open)
        seen.append(d.screen())
        release.set()

    run(session, script, SizedOutput(60, 20))
    rows = seen[0].splitlines()
    start = next(i for i, row in enumerate(rows) if "Analysing" in row)
    progress = " ".join(" ".join(rows[start : start + 2]).split())
    assert "Analysing your moves: 0 of 4 (Esc stops)" in progress, rows[start : start + 2]
    assert rows[start + 1].startswith(" " * 22)  # the rest of the text under its start
    keys = " ".join(rows[-2:])
    for entry in ("←/→ marked moves", "↑/↓ moves", "Home/End first/end", "Esc close", "F1 Help", "^Q Quit"):
        assert entry in keys, rows[-2:]


def test_up_and_down_step_through_every_move_and_the_marks_go_on_from_there() -> None:
    session = ai_session(trump="S")
    session.coach = Coach(nodes=NODES)
    seen: dict[str, str] = {}

    async def script(d: Driver) -> None:
        await d.my_turn()
        session.flow.game = lost_game()  # 8 moves; the only mark is the first one
        await d.keys(F6)
        await d.until(lambda: session.coach.complete)
        for name, keys in (
            ("up", UP),  # from the end: the move before the last
            ("down", DOWN),  # on past the last move: the end
            ("page up", PAGE_UP),  # ten back: the first move, the marked one
            ("down again", DOWN),
            ("right", RIGHT),  # no mark after the second move: the board stays
            ("left", LEFT),  # back to the mark before it
        ):
            await d.keys(keys)
            seen[name] = f"{session.coach.at} " + d.screen()

    run(session, script, SizedOutput(90, 24))
    assert seen["up"].startswith("6 ") and "Move 7 of 8:" in seen["up"]
    assert "In your moves: 1 proven mistake." in seen["up"]  # not at a mark: the summary
    assert seen["down"].startswith("None ") and "Move 8 of 8:" in seen["down"]
    assert seen["page up"].startswith("0 ") and "Marked move 1 of 1: proven mistake." in seen["page up"]
    assert seen["down again"].startswith("1 ") and "Move 2 of 8: AI (easy) took" in seen["down again"]
    assert seen["right"].startswith("1 ") and "Move 2 of 8:" in seen["right"]
    assert seen["left"].startswith("0 ") and "Move 1 of 8: You played" in seen["left"]
    assert "↑/↓ moves" in seen["up"]  # the key bar says so


def estimated_game() -> Game:
    """A finished game of "You" (easy, seat 0) against medium, beyond the proofs of a small budget
    for most of it: its verdicts are mostly estimates."""
    game = Game(deal(bytes([13]) * 32, 0, "SH"), {"Players": "You vs AI (medium)"})
    while game.result is None:
        level = "easy" if game.position.turn == 0 else "medium"
        game.play(choose(game.position, level, history=game.positions))
    return game


@functools.cache
def estimated_verdicts() -> tuple[Verdict, ...]:
    """The verdicts on your moves in :func:`estimated_game` at :data:`ESTIMATE_NODES`, worked out
    once for the tests that compare the screens with them (the same every time: a node budget)."""
    return tuple(analyze(estimated_game(), (0,), nodes=ESTIMATE_NODES))


def test_estimated_mistakes_and_doubtful_moves_are_marked_as_estimates() -> None:
    game = estimated_game()
    graded = [v for v in estimated_verdicts() if v.grade is not None]
    assert {v.grade for v in graded} == {DOUBTFUL, ESTIMATED_MISTAKE}  # the game this test needs
    session = ai_session(trump="S")
    session.coach = Coach(nodes=ESTIMATE_NODES)
    seen: list[str] = []

    async def script(d: Driver) -> None:
        await d.my_turn()
        session.flow.game = game
        await d.keys(F6)
        await d.until(lambda: session.coach.complete)
        seen.append(d.screen())
        for _ in graded:
            await d.keys(RIGHT)
            seen.append(d.screen())

    run(session, script, SizedOutput(100, 40))
    summary, *steps = seen
    doubtful = sum(v.grade == DOUBTFUL for v in graded)
    estimated = len(graded) - doubtful
    counts = (
        f"0 proven mistakes, {estimated} estimated mistake{'s' * (estimated > 1)}, "
        f"{doubtful} doubtful move{'s' * (doubtful > 1)} (estimated)"
    )
    assert f"In your moves: {counts}. ←/→ go through them." in " ".join(summary.split())
    for number, (verdict, screen) in enumerate(zip(graded, steps, strict=True), 1):
        assert verdict.grade is not None
        mark, label = {
            DOUBTFUL: ("?!", "doubtful (estimated): after it "),
            ESTIMATED_MISTAKE: ("(?)", "estimated mistake (not proven): after it "),
        }[verdict.grade]
        assert f"Move {verdict.index + 1} of {len(game.moves)}: You played" in screen
        assert f"{mark} {label}" in screen
        assert f"Marked move {number} of {len(graded)}: estimate, not proven." in screen
        log = [line for line in screen.splitlines() if re.search(rf"\b{verdict.index + 1} You ", line)]
        assert log and log[0].rstrip().endswith(" " + mark)  # the move log marks it
        assert "(proven)" not in screen  # an estimate never reads as a proof


@pytest.mark.usefixtures("quick_hints")
def test_the_hint_says_why() -> None:
    session = ai_session(trump="S")

    async def script(d: Driver) -> None:
        await d.my_turn()
        await d.keys(F2)
        await d.until(lambda: session.message.startswith("Hint"))

    run(session, script)
    assert re.fullmatch(
        r"Hint: (.+ wins the game \(proven, \d+ moves? to the end\)|.+: the game is lost whatever you play "
        r"\(proven, \d+ moves? to the end\)|.+ — draws \(proven\)|.+, the best move found: after it you "
        r"(look \d+\.\d cards (ahead of|behind) |and )AI \(easy\)( look even)? \(an estimate, not proven\)"
        r"|.+ — the only legal move)\. Enter plays it\.",
        session.message,
    ), session.message


def test_the_hint_words_for_each_kind_of_advice() -> None:
    move = Move.parse("KS,6H")
    assert advice_words(Advice(move, WIN, 7, None)) == "KS,6H wins the game (proven, 7 moves to the end)"
    assert advice_words(Advice(move, LOSS, 1, None)) == (
        "KS,6H: the game is lost whatever you play (proven, 1 move to the end)"
    )
    assert advice_words(Advice(move, DRAW, None, None)) == "KS,6H — draws (proven)"
    # an estimate says which side is ahead, of whom, and that it is one: never a bare signed number
    assert advice_words(Advice(move, None, None, 2.25), str, "Ann") == (
        "KS,6H, the best move found: after it you look 2.2 cards ahead of Ann (an estimate, not proven)"
    )
    assert advice_words(Advice(move, None, None, -1.8), str, "Ann") == (
        "KS,6H, the best move found: after it you look 1.8 cards behind Ann (an estimate, not proven)"
    )
    assert "look even" in advice_words(Advice(move, None, None, 0.01), str, "Ann")
    i18n.use("uk")  # a language that writes a decimal comma: "2.2" read as a date or a version there
    assert " 2,2 " in advice_words(Advice(move, None, None, 2.25), str, "Ann")
    assert " 1,5 " in f" {standing_words(None, -1.5)}"
    i18n.use("en")
    found = advise(Position.from_notation("9HJHQHKD/TC/8H SH 0"), nodes=NODES)
    assert found.value == WIN and found.moves is not None and found.moves % 2 == 1  # the winner moves last


def test_the_replay_shows_a_saved_analysis(homes: Path) -> None:
    game = lost_game()
    record = homes / "lost.txt"
    record.write_text(game.to_record(), encoding="utf-8")
    save_analysis(str(record), analyze(game, (0,), nodes=NODES))
    verdicts, note = _analysis(str(record), game)
    assert sorted(verdicts) == [0, 2, 4, 6] and verdicts[0].kind == WIN_TO_LOSS
    assert note == (
        "With the coach's analysis: 1 proven mistake; marked in the moves (? and ?? proven, (?) and ?! estimated)."
    )
    replay = Replay(game, "lost.txt", verdicts=verdicts, note=note)
    seen = replay_screens(replay, [RIGHT])
    assert "With the coach's analysis: 1 proven mistake" in seen[0]  # the note, wrapped in the table
    assert "?? turned a win into a loss; better:" in seen[1] and "(proven)" in seen[1]
    assert verdict_words(verdicts[2]) == "lost already (proven)"


def test_the_replay_marks_the_estimates_of_an_older_saved_analysis(homes: Path) -> None:
    game = estimated_game()
    record = homes / "estimated.txt"
    record.write_text(game.to_record(), encoding="utf-8")
    analysed = list(estimated_verdicts())
    path = save_analysis(str(record), analysed)
    saved = json.loads(path.read_text(encoding="utf-8"))
    assert {m["grade"] for m in saved["moves"]} == {None, DOUBTFUL, ESTIMATED_MISTAKE}
    for move in saved["moves"]:
        del move["grade"]  # as the files written before the grades were
    path.write_text(json.dumps(saved), encoding="utf-8")
    verdicts, note = _analysis(str(record), game)
    assert list(verdicts.values()) == analysed  # the grades follow from the estimates read back
    assert note.startswith("With the coach's analysis: 0 proven mistakes, 1 estimated mistake, ")
    assert note.endswith("; marked in the moves (? and ?? proven, (?) and ?! estimated).")
    mistake = next(v for v in analysed if v.grade == ESTIMATED_MISTAKE)
    replay = Replay(game, "estimated.txt", verdicts=verdicts, note=note)
    seen = replay_screens(replay, [RIGHT * (mistake.index + 1)], settle=0.05)[1:]
    assert f"Move {mistake.index + 1} of {len(game.moves)}" in seen[0]
    assert "(?) estimated mistake (not proven): after it" in seen[0]


def test_a_damaged_analysis_is_named_in_the_replay_not_fatal(homes: Path) -> None:
    game = lost_game()
    record = homes / "lost.txt"
    record.write_text(game.to_record(), encoding="utf-8")
    analysis_path(str(record)).write_text('{"moves": [{"number": 99, "move": "take"}]}', encoding="utf-8")
    verdicts, note = _analysis(str(record), game)
    assert verdicts == {} and note.startswith("The coach's analysis cannot be shown: ")
    assert "lost.txt.analysis.json is not an analysis of this game" in note
    save_analysis(str(record), analyze(game, (0,), nodes=NODES))
    path = analysis_path(str(record))
    path.write_text(path.read_text(encoding="utf-8").replace('"best_estimate": null', '"best_estimate": "lots"', 1))
    verdicts, note = _analysis(str(record), game)
    assert verdicts == {} and note.endswith("is not an analysis of this game ('lots' is not a number)")


class FriendOpponent(ScriptedOpponent):
    """A friend over the network (a duel): plays the first legal move at once."""

    async def move(self, game: Game) -> Move:
        return game.position.legal_moves()[0]


def test_in_a_duel_the_analysis_opens_once_the_game_is_over() -> None:
    session = GameScreen(FriendOpponent(), MatchScore(), trump="S")  # the player sits in seat 1
    session.coach = Coach(nodes=NODES)
    seen: list[str] = []

    async def script(d: Driver) -> None:
        await d.until(lambda: session.flow.game is not None)
        seen.append(d.screen())
        game = lost_game()
        game.headers["Players"] = "Bob vs You"
        session.flow.game = game  # as if this duel had just ended
        seen.append(d.screen())
        await d.keys(F6)
        await d.until(lambda: session.coach.complete)
        seen.append(d.screen())

    run(session, script)
    playing, over, done = seen
    assert "F6" not in playing and "F6 Analysis" in over and "F3" not in over  # no undo in a duel
    assert "No proven mistake and no doubtful move in your 4 moves." in done  # seat 1's moves: take, QH,TC, KD, 8H
    assert [v.player for v in session.coach.verdicts] == [1, 1, 1, 1]


def test_the_coach_says_where_the_game_was_lost_proven() -> None:
    """Issue 22, item 11: F6 said "No proven mistake…" for a game lost already (proven), and
    neither F6 nor ``trumps analyze`` said where the game was lost."""
    game = lost_game()
    verdicts = list(analyze(game, (0,), nodes=NODES))
    said = turning_words(verdicts, move_text)
    assert said is not None and said.startswith("The game was lost at move 1: Q♥ K♦ turned the win into a loss; ")
    assert said.endswith(" kept it (proven).")
    lost_already = [v for v in verdicts if v.index > 0]  # from move 3 on: lost before it, not where
    later = turning_words(lost_already, move_text)
    assert later is not None and later.startswith("The game was lost already (proven) before move 3:")
    kept = Verdict(0, 0, Move.parse("9H"), "kept", 1, 1, None, None, None)
    assert turning_words([kept]) is None
    # in a game too long for proofs, the first move after which the loss is proven
    estimate = Verdict(108, 0, Move.parse("6H,6S"), "estimated", None, LOSS, Move.parse("7H,6S"), None, -1.0)
    assert turning_words([kept, estimate], move_text) == (
        "The game was lost (proven) after move 109, 6♥ 6♠; whether it was lost before, the search cannot "
        "prove: the marked estimates are the places to look."
    )


def test_the_analysis_screen_says_where_a_game_without_marks_was_lost() -> None:
    session = ai_session(trump="S")
    session.coach = Coach(nodes=NODES)
    game = lost_game()
    shown: list[str] = []

    async def script(d: Driver) -> None:
        await d.my_turn()
        session.flow.game = game
        session.coach.start(game, 0, None, lambda: None)
        await d.until(lambda: session.coach.complete)
        session.coach.verdicts = [v for v in session.coach.verdicts if v.index > 0]  # no marks left
        session.coach.open = True
        shown.append(" ".join(d.screen().split()))

    run(session, script, SizedOutput(100, 30))
    assert "No proven mistake and no doubtful move in your" in shown[0]
    assert "The game was lost already (proven) before move 3:" in shown[0]
