"""The AI: one entry point, :func:`choose`, for every level.

>>> from engine import deal
>>> from random import Random
>>> position = deal(bytes(32), dealer=0, trumps="SH")
>>> choose(position, level="hard") in position.legal_moves()
True
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from engine.ai.greedy import greedy_move
from engine.errors import IllegalMoveError
from engine.moves import Move
from engine.position import Position

LEVELS = ("easy", "medium", "hard")


def choose(
    position: Position,
    level: str = "hard",
    seconds: float | None = None,
    nodes: int | None = None,
    history: Sequence[Position] = (),
    rng: random.Random | None = None,
) -> Move:
    """The move the AI of ``level`` plays in ``position``.

    ``seconds`` bounds the thinking time and ``nodes`` the work; ``history``
    holds the game's earlier positions (for the repetition rule) and ``rng``
    is the only source of randomness (a fixed one when ``None``).
    """
    if level not in LEVELS:
        raise ValueError(f"unknown AI level {level!r}: choose one of {', '.join(LEVELS)}")
    moves = position.legal_moves()
    if not moves:
        raise IllegalMoveError(f"no move to choose in {position.notation()}: the game is over")
    rng = rng if rng is not None else random.Random(0)
    if level == "easy":
        return rng.choice(moves)
    if level == "medium" and rng.random() < 0.5:
        return rng.choice(moves)
    return greedy_move(position, moves)
