"""Match scoring and dealer rotation (rules.md, Matches), and the AI opponent's deals."""

from __future__ import annotations

import asyncio

import pytest

from cli.app.ai_opponent import AIOpponent, game_seed
from cli.app.score import MatchScore, points_text
from engine import Game, Move, Outcome, Position, Reason
from engine.ai import LEVELS, MEDIUM_NODES
from tests.screen_table import Notes


def test_the_loser_deals_next_and_a_win_scores_one() -> None:
    match = MatchScore(games=3)
    match.finish_game(dealer=0, outcome=Outcome(0, Reason.OUT))
    assert (match.halves, match.next_dealer, match.played) == ([2, 0], 1, 1)
    match.finish_game(dealer=1, outcome=Outcome(1, Reason.OUT))
    assert (match.halves, match.next_dealer) == ([2, 2], 0)
    assert not match.over and match.number == 3


@pytest.mark.parametrize("reason", [Reason.LAST_CARD, Reason.REPETITION, Reason.MOVE_CAP, Reason.BOTH_OUT])
@pytest.mark.parametrize("dealer", [0, 1])
def test_after_a_draw_the_deal_passes_and_both_score_a_half(reason: Reason, dealer: int) -> None:
    match = MatchScore(games=2)
    match.finish_game(dealer=dealer, outcome=Outcome(None, reason))
    assert match.halves == [1, 1] and match.next_dealer == 1 - dealer


def test_score_and_winner_are_told_from_the_local_seat() -> None:
    match = MatchScore(games=2, me=1)
    match.finish_game(0, Outcome(1, Reason.OUT))
    match.finish_game(0, Outcome(None, Reason.REPETITION))
    assert match.over
    assert match.score_text("You", "Bob") == "You 1½ - Bob ½"
    assert match.winner_text("Bob") == "You win the match"
    rematch = match.rematch()
    assert (rematch.games, rematch.me, rematch.played, rematch.halves) == (2, 1, 0, [0, 0])
    assert rematch.next_dealer == match.next_dealer


@pytest.mark.parametrize(
    ("games", "played", "halves", "decided"),
    [
        (3, 3, [2, 4], True),  # every game played
        (3, 3, [3, 3], True),  # a drawn match is decided too
        (3, 1, [2, 0], False),  # two games left could turn it
        (3, 2, [4, 0], True),  # one game left cannot make up two points
        (3, 2, [3, 1], False),  # one game left could level it: not won yet
        (5, 3, [6, 0], True),
        (5, 3, [5, 1], False),
        (2, 0, [0, 0], False),
    ],
)
def test_a_match_is_decided_once_the_games_left_cannot_change_its_winner(
    games: int, played: int, halves: list[int], decided: bool
) -> None:
    assert MatchScore(games=games, played=played, halves=halves).decided is decided


@pytest.mark.parametrize(
    ("played", "halves", "shown"),
    [
        (0, [0, 0], "Match over before any of its 3 games counted: S"),
        (1, [0, 2], "Match over after game 1 of 3: S"),
        (2, [0, 4], "Match over: Bob wins the match (S)"),
        (3, [3, 3], "Match over: The match is drawn (S)"),
    ],
)
def test_a_match_ended_names_a_winner_only_once_decided(played: int, halves: list[int], shown: str) -> None:
    assert MatchScore(games=3, played=played, halves=halves).ended_text("S", "Bob") == shown


def test_points_text() -> None:
    assert [points_text(h) for h in (0, 1, 2, 5)] == ["0", "½", "1", "2½"]


def test_a_seeded_ai_deals_reproducibly_and_takes_another_trump() -> None:
    async def deals(seed: bytes) -> list[tuple[bytes, int, str]]:
        ai = AIOpponent("easy", seed)
        out = []
        for number, dealer in ((1, None), (2, 0), (3, 1)):
            deal = await ai.deal(number, dealer, "H")
            out.append((deal.seed, deal.dealer, deal.trumps))
            assert deal.me == 0 and deal.trumps[0] == "H" and deal.trumps[1] != "H"
        return out

    first = asyncio.run(deals(b"\x07" * 32))
    assert first == asyncio.run(deals(b"\x07" * 32))
    assert first[0][0] == b"\x07" * 32 and first[1][0] == game_seed(b"\x07" * 32, 2)
    assert [d[1] for d in first[1:]] == [0, 1]
    assert len({d[0] for d in first}) == 3


def test_each_level_thinks_for_its_documented_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    from cli.app import ai_opponent

    budgets: dict[str, tuple[object, object]] = {}

    def recording_choose(position: Position, level: str, **budget: object) -> Move:
        budgets[level] = (budget.get("seconds"), budget.get("nodes"))
        return position.legal_moves()[0]

    monkeypatch.setattr(ai_opponent, "choose", recording_choose)
    game = Game.from_deal(bytes(32), 0, "SH")
    for level in LEVELS:
        asyncio.run(AIOpponent(level).move(game))
    assert budgets["hard"] == (0.5, None) and budgets["expert"] == (2.0, None)  # docs/ai.md, README
    assert budgets["medium"] == (None, None) and MEDIUM_NODES == 400  # the engine caps medium at 400 nodes
    expert, hard = budgets["expert"][0], budgets["hard"][0]
    assert isinstance(expert, float) and isinstance(hard, float) and expert > hard

    def recording_advise(position: Position, **budget: object) -> None:
        budgets["hint"] = (budget.get("seconds"), budget.get("nodes"))

    monkeypatch.setattr(ai_opponent, "advise", recording_advise)
    ai_opponent.suggest(game)
    assert budgets["hint"] == (ai_opponent.HINT_SECONDS, None)  # engine.ai.advise: expert's search


def test_the_ai_opponent_answers_with_legal_moves_off_the_loop() -> None:
    async def play() -> Game:
        ai = AIOpponent("medium", b"\x02" * 32, seconds=0.01)
        notes = Notes()
        ai.attach(notes)
        ai.say("hello")
        assert notes.chats and "AI (medium)" in notes.chats[0]
        assert not ai.claim()
        deal = await ai.deal(1, None, "S")
        game = Game.from_deal(deal.seed, deal.dealer, deal.trumps)
        while game.result is None:
            move = await ai.move(game)
            assert move in game.position.legal_moves()
            game.play(move)
        return game

    assert asyncio.run(play()).result is not None
