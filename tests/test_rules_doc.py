"""What docs/rules.md and docs/notation.md say where the rules meet: the start position counts for
repetition, an empty hand beats the move cap and repetition beats the cap, and the turn of a
finished position is the player who would move next."""

from __future__ import annotations

from engine import Game, Position, Reason, Rules

CYCLE = ["7C", "8C,9D", "take", "7D", "9D,8C", "take"]
"""rules.md's endless cycle: six moves that bring the start position back."""


def test_the_start_position_is_its_own_first_occurrence() -> None:
    game = Game(Position.from_notation("6C7C/6D7D9D8C/- SH 0"))
    for move in CYCLE * 2:
        assert game.result is None
        game.play(move)
    assert game.position == game.start  # seen three times, counting the start
    assert game.result is not None and game.result.reason is Reason.REPETITION


def test_an_empty_hand_wins_even_as_the_move_cap_is_reached() -> None:
    game = Game(Position.from_notation("6S/8H9H/- SH 0", Rules(max_moves=1)))
    game.play("6S")
    assert game.result is not None and (game.result.winner, game.result.reason) == (0, Reason.OUT)
    capped = Game(Position.from_notation("6S7S/8H9H/- SH 0", Rules(max_moves=1)))
    capped.play("6S")
    assert capped.result is not None and capped.result.reason is Reason.MOVE_CAP


def test_a_third_occurrence_as_the_cap_is_reached_is_a_repetition() -> None:
    game = Game(Position.from_notation("6C7C/6D7D9D8C/- SH 0", Rules(max_moves=len(CYCLE) * 2)))
    for move in CYCLE * 2:
        game.play(move)
    assert game.result is not None and game.result.reason is Reason.REPETITION


def test_a_finished_positions_turn_is_the_player_who_would_move_next() -> None:
    game = Game(Position.from_notation("6S/7S/- SH 0"))
    after = game.play("6S")
    assert after.notation() == "-/7S/6S SH 1"  # notation.md's example: 7♠ would beat 6♠, a draw
    assert game.result is not None and game.result.reason is Reason.LAST_CARD
