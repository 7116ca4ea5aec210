"""The AI: one entry point, :func:`choose`, for every level.

Levels, weakest first:

- ``easy``: the one-ply greedy player, with a random move half the time;
- ``medium``: the search of ``hard`` cut to 400 nodes (a ply or two at the deal), no clock;
- ``hard``: iterative-deepening alpha-beta search, 0.5 s a move unless told;
- ``expert``: the same search, 2 s a move unless told.

Hard and expert play perfectly once their search closes (every line ends in a
win, a loss or a draw), which happens within the budget in small endgames;
see docs/ai.md for the measured strength of each level.

>>> from engine import Position, deal
>>> position = deal(bytes(32), dealer=0, trumps="SH")
>>> choose(position, level="hard", nodes=2_000) in position.legal_moves()
True
>>> move = choose(Position.from_notation("9HJHQHKD/TC/8H SH 0"), nodes=10_000)
>>> str(move) in ("9H,JH", "9H,KD", "JH,9H", "JH,KD")  # the five others, QH,KD among them, lose
True
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from engine.ai.greedy import greedy_move
from engine.ai.proof import DRAW, LOSS, WIN, ProofCache
from engine.ai.search import MATE, MATE_BOUND
from engine.ai.search import search as _search  # the name `search` stays the submodule
from engine.errors import IllegalMoveError
from engine.moves import Move
from engine.position import Position

__all__ = ["LEVELS", "Advice", "ProofCache", "advise", "choose"]

LEVELS = ("easy", "medium", "hard", "expert")

MEDIUM_NODES = 400
"""The medium level's node budget (its whole strength knob)."""
DEFAULT_SECONDS = {"hard": 0.5, "expert": 2.0}
"""Thinking time a move for the searching levels when the caller gives no budget."""


def choose(
    position: Position,
    level: str = "hard",
    seconds: float | None = None,
    nodes: int | None = None,
    history: Sequence[Position] = (),
    rng: random.Random | None = None,
    cache: ProofCache | None = None,
) -> Move:
    """The move the AI of ``level`` plays in ``position``.

    ``seconds`` bounds the thinking time and ``nodes`` the work (with ``nodes``
    alone the move is deterministic); with neither the level's own budget
    applies. ``history`` holds the game's earlier positions (for the
    repetition rule; the current position may be its last entry) and ``rng``
    is the only source of randomness; when it is ``None``, ``easy`` draws from
    one seeded by the position's notation (so the same position always gets the
    same move, and about half the positions get a random one). ``cache`` keeps
    the proofs of ``hard`` and ``expert`` between the moves of one game (a new
    :class:`ProofCache` for each game; the same cache state gives the same move).
    """
    if level not in LEVELS:
        raise ValueError(f"unknown AI level {level!r}: choose one of {', '.join(LEVELS)}")
    moves = position.legal_moves()
    if not moves:
        raise IllegalMoveError(f"no move to choose in {position.notation()}: the game is over")
    if len(moves) == 1:
        return moves[0]
    if level == "easy":
        # Without an rng, one seeded by the position: still deterministic, yet random half the time
        # across positions (a fixed seed would draw the same number, and the same branch, every move).
        rng = rng if rng is not None else random.Random(position.notation())
        return rng.choice(moves) if rng.random() < 0.5 else greedy_move(position, moves)
    if history and history[-1] == position:
        history = history[:-1]
    if level == "medium":
        nodes = MEDIUM_NODES if nodes is None else min(nodes, MEDIUM_NODES)
        return _search(position, history, nodes=nodes, proof_share=0).move  # too few nodes to prove
    if seconds is None and nodes is None:
        seconds = DEFAULT_SECONDS[level]
    return _search(position, history, seconds=seconds, nodes=nodes, cache=cache).move


@dataclass(frozen=True, slots=True)
class Advice:
    """A suggested move and why: the proven value and its distance, or the evaluation."""

    move: Move
    value: int | None
    """``WIN``, ``DRAW`` or ``LOSS`` (engine.ai.proof) when the search proved it; ``None`` for an
    estimate or a forced move."""
    moves: int | None
    """For a proven win or loss: the moves (of both players) to the end of the game."""
    estimate: float | None
    """For an estimate: the evaluation in cards, from the mover's point of view."""
    forced: bool = False
    """The only legal move (nothing was searched)."""


def advise(
    position: Position,
    seconds: float | None = None,
    nodes: int | None = None,
    history: Sequence[Position] = (),
    cache: ProofCache | None = None,
) -> Advice:
    """The strongest level's move in ``position`` with the facts behind it (a hint that says why);
    the budget as for :func:`choose` (``expert``'s own when neither is given).

    >>> advice = advise(Position.from_notation("9HJHQHKD/TC/8H SH 0"), nodes=10_000)
    >>> advice.value == WIN, advice.moves is not None and advice.moves > 0, advice.estimate
    (True, True, None)
    """
    moves = position.legal_moves()
    if not moves:
        raise IllegalMoveError(f"no move to advise in {position.notation()}: the game is over")
    if len(moves) == 1:
        return Advice(moves[0], None, None, None, forced=True)
    if history and history[-1] == position:
        history = history[:-1]
    if seconds is None and nodes is None:
        seconds = DEFAULT_SECONDS[LEVELS[-1]]
    found = _search(position, history, seconds=seconds, nodes=nodes, cache=cache)
    if not found.proven:
        return Advice(found.move, None, None, found.score / 100)
    if found.score > MATE_BOUND:
        return Advice(found.move, WIN, MATE - found.score, None)
    if found.score < -MATE_BOUND:
        return Advice(found.move, LOSS, MATE + found.score, None)
    return Advice(found.move, DRAW, None, None)
