"""The AI's entry point: levels, legality, budgets, determinism, history."""

from __future__ import annotations

import inspect
import random
import sys
import time

import pytest

from engine import TAKE, Card, Game, Position, Rules, deal
from engine.ai import LEVELS, choose
from engine.ai.board import child, move_of, pile_code, position_key, root_codes
from engine.ai.greedy import greedy_move
from engine.ai.search import MATE_BOUND, _out_value, search
from engine.cards import BEATERS


def _positions() -> list[Position]:
    """Positions from a few games of random play, from the deal to the end."""
    rng = random.Random(3)
    found = []
    for n in range(3):
        game = Game(deal(bytes([n]) * 32, n % 2, "SH"))
        while game.result is None and len(game.moves) < 60:
            found.append(game.position)
            game.play(rng.choice(game.position.legal_moves()))
    return found[::7]


@pytest.mark.parametrize("level", LEVELS)
def test_every_level_plays_a_legal_move(level: str) -> None:
    for position in _positions():
        assert position.is_legal(choose(position, level, nodes=300, rng=random.Random(1)))


def test_a_whole_game_between_levels_ends() -> None:
    game = Game(deal(bytes(32), 0, "DC"))
    rng = random.Random(5)
    while game.result is None:
        level = ("medium", "hard")[game.position.turn]
        game.play(choose(game.position, level, nodes=400, history=game.positions, rng=rng))
    assert game.result.reason.value in ("out", "last card", "repetition", "move cap")


def test_easy_without_an_rng_is_random_about_half_the_time_yet_deterministic() -> None:
    positions = [p for p in _positions() if len(p.legal_moves()) > 2]  # so a random move is seldom greedy
    moves = [choose(p, "easy") for p in positions]
    assert moves == [choose(p, "easy") for p in positions]
    off_greedy = sum(
        move != greedy_move(p, p.legal_moves()) for p, move in zip(positions, moves, strict=True)
    )
    assert 0.2 * len(positions) < off_greedy < 0.8 * len(positions), (off_greedy, len(positions))


def test_unknown_level_and_finished_game_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown AI level"):
        choose(deal(bytes(32), 0, "SH"), "grandmaster")
    with pytest.raises(ValueError, match="game is over"):
        choose(Position.from_notation("-/6H/KD SH 1"))


def test_a_node_budget_makes_the_move_deterministic() -> None:
    for position in _positions()[:6]:
        first = search(position, nodes=1_500)
        again = search(position, nodes=1_500)
        assert (first.move, first.score, first.depth) == (again.move, again.score, again.depth)
        assert first.nodes <= 1_500
    assert search(_positions()[0], nodes=50).nodes <= 50


def test_the_time_budget_holds_on_a_full_deal() -> None:
    position = deal(bytes(range(32)), 1, "HC")
    for seconds in (0.05, 0.2):
        start = time.perf_counter()
        result = search(position, seconds=seconds)
        # A generous margin: the machine is shared, and the point is that the search stops.
        assert time.perf_counter() - start < seconds + 0.25
        assert not result.proven and result.depth >= 1


def test_the_default_hard_level_is_quick_enough_for_play() -> None:
    start = time.perf_counter()
    choose(deal(bytes(32), 0, "SH"))
    assert time.perf_counter() - start < 1.5


def test_the_current_position_may_end_the_history() -> None:
    game = Game(deal(bytes(32), 0, "SH"))
    for _ in range(4):
        game.play(game.position.legal_moves()[0])
    with_current = choose(game.position, nodes=800, history=game.positions)
    without = choose(game.position, nodes=800, history=game.positions[:-1])
    assert with_current is without


def _random_position(rng: random.Random, pickup: str) -> Position:
    """Any position at all: tiny or empty hands, an empty or long pile, single cards."""
    cards = rng.sample(range(36), rng.randint(2, 36))
    first = rng.randint(0, len(cards))
    second = rng.randint(first, len(cards))
    mine = cards[: rng.randint(0, 3)] if rng.random() < 0.5 else cards[:first]
    pile = tuple(Card(c) for c in cards[second:])
    trumps = rng.sample(range(4), 2)
    hands = (sum(1 << c for c in mine), sum(1 << c for c in cards[first:second]))
    return Position(hands, pile, (trumps[0], trumps[1]), rng.randrange(2), Rules(pickup=pickup))


@pytest.mark.parametrize("pickup", ["forced", "voluntary"])
def test_the_search_agrees_with_the_engine_on_moves_play_and_outcome(pickup: str) -> None:
    # A differential test: the search's own generator, board play and game end against the engine's.
    rng = random.Random(pickup)
    checked = 0
    while checked < 2_000:
        position = _random_position(rng, pickup)
        legal = position.legal_moves()
        if not legal:
            continue
        checked += 1
        codes = list(root_codes(position))
        assert len(codes) == len(set(codes)), position
        assert {move_of(c) for c in codes} == set(legal), position
        me, opp, pile, turn = position_key(position)
        for code in codes:
            after = position.play(move_of(code))
            me2, pile2 = child(me, pile, code, position.trumps[turn])
            assert (me2, pile2) == (after.hand_sets[turn], pile_code(after.pile)), (position, code)
            if not me2:
                outcome = after.outcome()
                assert outcome is not None
                value = _out_value(opp, pile2, BEATERS[position.trumps[1 - turn]], 1)
                assert (value == 0) == (outcome.winner is None), (position, code)


@pytest.mark.parametrize(
    "notation", ["6C/9C/KHQH8SQC9S CS 0", "JD/AD/6DACTCKS8D9C DH 0"], ids=["six", "jack"]
)
def test_a_voluntary_pick_up_is_considered_when_the_last_card_could_beat(notation: str) -> None:
    # Beating with the last card only draws (the other's last card beats back); taking wins.
    position = Position.from_notation(notation, Rules(pickup="voluntary"))
    beat, take = position.legal_moves()
    drawn = position.play(beat).outcome()
    assert take == TAKE and drawn is not None and drawn.winner is None
    result = search(position, nodes=100_000)
    assert result.proven and result.score > MATE_BOUND
    assert result.move == TAKE
    assert choose(position, "hard", nodes=100_000) == TAKE


def test_the_move_cap_draws_the_search_too() -> None:
    rules = Rules(max_moves=10)
    position = Position.from_notation("9HJHQHKD/TC/8H SH 0", rules)
    assert search(position, nodes=20_000).score > 0  # a win with moves to spare
    earlier = [Position.from_notation("6S/7S/- SH 0", rules)] * 9  # the game's first 9 moves
    result = search(position, history=earlier, nodes=20_000)
    assert result.proven and result.score == 0  # the 10th move ends the game drawn


def test_the_search_module_is_not_shadowed_by_its_function() -> None:
    import engine.ai.search as module

    assert inspect.ismodule(module) and module is sys.modules["engine.ai.search"]
    assert module.search is search
