"""Properties of the engine that must hold for every position and game."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from engine import TAKE, Game, IllegalMoveError, Position, Reason, Rules, deal
from engine.cards import ALL_CARDS, FULL_DECK
from engine.moves import PAIR_MOVES, SINGLE_MOVES

ALL_MOVES = [TAKE, *SINGLE_MOVES, *(m for m in PAIR_MOVES if m is not TAKE)]

rules_strategy = st.builds(
    Rules,
    pickup=st.sampled_from(["forced", "voluntary"]),
    sixes=st.booleans(),
    max_moves=st.integers(1, 300),
)


@st.composite
def positions(draw: st.DrawFn) -> Position:
    """Any notation-valid position: some cards spread over two hands and the pile."""
    places = draw(st.lists(st.sampled_from([0, 1, 2, None]), min_size=36, max_size=36))
    pile = [ALL_CARDS[i] for i, place in enumerate(places) if place == 2]
    pile = draw(st.permutations(pile)) if pile else []
    hands = tuple(sum(1 << i for i, place in enumerate(places) if place == p) for p in (0, 1))
    trumps = tuple(draw(st.permutations(range(4)))[:2])
    return Position(
        (hands[0], hands[1]),
        tuple(pile),
        (trumps[0], trumps[1]),
        draw(st.integers(0, 1)),
        draw(rules_strategy),
    )


def random_game(seed: int, rules: Rules) -> Game:
    rng = random.Random(seed)
    trumps = "".join(rng.sample("SHDC", 2))
    game = Game.from_deal(rng.randbytes(32), rng.randrange(2), trumps, rules)
    while game.result is None:
        game.play(rng.choice(game.position.legal_moves()))
    return game


@given(positions())
def test_notation_round_trip(position: Position) -> None:
    assert Position.from_notation(position.notation(), position.rules) == position


@given(positions())
@settings(max_examples=60)
def test_every_legal_move_plays_and_nothing_else_does(position: Position) -> None:
    legal = set(position.legal_moves())
    assert len(legal) == len(position.legal_moves())
    for move in ALL_MOVES:
        if move in legal:
            after = position.play(move)
            assert after.card_count() == position.card_count()
            assert after.turn == 1 - position.turn
        else:
            assert not position.is_legal(move)
            try:
                position.play(move)
            except IllegalMoveError:
                pass
            else:
                raise AssertionError(f"{move} played in {position} but is not legal")


@given(positions())
def test_no_moves_exactly_when_over(position: Position) -> None:
    assert (position.legal_moves() == []) == position.is_over == (position.outcome() is not None)


@given(st.integers(0, 2**32), rules_strategy)
@settings(max_examples=40, deadline=None)
def test_random_games_end_and_conserve_all_36_cards(seed: int, rules: Rules) -> None:
    game = random_game(seed, rules)
    assert game.result is not None
    assert len(game.moves) <= rules.max_moves
    for position in game.positions:
        hands = position.hand_sets
        pile = sum(1 << c for c in position.pile)
        assert hands[0] | hands[1] | pile == FULL_DECK
        assert position.card_count() == 36


@given(st.integers(0, 2**32), rules_strategy)
@settings(max_examples=25, deadline=None)
def test_record_round_trip(seed: int, rules: Rules) -> None:
    game = random_game(seed, rules)
    game.headers["Players"] = "Ann vs Bob"
    again = Game.from_record(game.to_record())
    assert again == game
    assert again.result == game.result
    assert again.to_record() == game.to_record()


def test_repetition_example_of_rules_md_is_a_draw() -> None:
    game = Game(Position.from_notation("6C7C/6D7D9D8C/- SH 0"))
    cycle = ["7C", "8C,9D", "take", "7D", "9D,8C", "take"]
    for move in cycle:
        game.play(move)
    assert game.position == game.start
    assert game.result is None
    for move in cycle:
        game.play(move)
    assert game.result is not None
    assert game.result.winner is None
    assert game.result.reason is Reason.REPETITION


def test_move_cap_is_a_draw() -> None:
    game = Game(Position.from_notation("6C7C/6D7D9D8C/- SH 0", Rules(max_moves=4)))
    for move in ["7C", "8C,9D", "take", "7D"]:
        game.play(move)
    assert game.result is not None
    assert (game.result.winner, game.result.reason) == (None, Reason.MOVE_CAP)


def test_undo_restores_the_game() -> None:
    game = random_game(7, Rules())
    moves = game.moves
    game.undo(len(moves) // 2)
    assert game.moves == moves[: len(moves) - len(moves) // 2]
    assert game.result is None
    for move in moves[len(game.moves) :]:
        game.play(move)
    assert game.moves == moves


def test_deal_gives_each_player_the_six_of_their_trump() -> None:
    for seed in range(30):
        position = deal(seed.to_bytes(2, "big"), seed % 2, "DC")
        assert position.hand_sets[0] >> (9 * 2) & 1  # player 0 holds 6D
        assert position.hand_sets[1] >> (9 * 3) & 1  # player 1 holds 6C
        assert position.turn == 1 - seed % 2
