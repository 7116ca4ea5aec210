"""The search's raw representation: hands as 36-bit sets, the pile as one int, moves as codes.

The pile packs one card per 6 bits, the top card lowest, each stored as ``card + 1``
so that an empty pile is ``0`` and the top card is ``(pile & 63) - 1``. A move code
is what the move pushes onto that int: ``0`` for a pick-up, ``card + 1`` for a
single card, ``(beat + 1) << 6 | (second + 1)`` for a beat and a second card, so
that playing it is ``pile << (6 * cards) | code``.

>>> from engine import Move, Position
>>> p = Position.from_notation("6S7SAH/TDQD9C/7C8C SH 0")
>>> pile = pile_code(p.pile)
>>> str(p.pile[-1]), (pile & 63) - 1 == p.pile[-1]
('8C', True)
>>> seven, ace = Move.parse("7S,AH").cards
>>> str(move_of((seven + 1) << 6 | (ace + 1)))
'7S,AH'
"""

from __future__ import annotations

from collections.abc import Iterable

from engine.moves import PAIR_MOVES, SINGLE_MOVES, TAKE, Move

Key = tuple[int, int, int, int]
"""A position for the search: (mover's hand, other hand, pile code, turn)."""


def pile_code(pile: Iterable[int]) -> int:
    """The pile (bottom to top) as one int, top card in the lowest 6 bits."""
    code = 0
    for card in pile:
        code = code << 6 | (card + 1)
    return code


def move_of(code: int) -> Move:
    """The shared :class:`Move` for a move code."""
    if code == 0:
        return TAKE
    if code < 64:
        return SINGLE_MOVES[code - 1]
    return PAIR_MOVES[36 * ((code >> 6) - 1) + (code & 63) - 1]
