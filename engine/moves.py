"""Moves: ``take``, one card, or a beat followed by a second card.

>>> str(Move.parse("ks 6h")), str(Move.parse("K♠,6♥")), str(Move.parse("10d"))
('KS,6H', 'KS,6H', 'TD')
>>> Move.parse("TAKE") is TAKE
True
"""

from __future__ import annotations

import re

from engine.cards import ALL_CARDS, Card
from engine.errors import CardError, MoveError


class Move:
    """A move; instances are shared, so equal moves are the same object.

    ``cards`` is ``()`` for a pick-up, ``(card,)`` for a lead onto the empty
    pile or a beat with one's last card, and ``(beat, second)`` for a beat
    followed by a second card.
    """

    __slots__ = ("_text", "cards", "mask")
    cards: tuple[Card, ...]
    mask: int
    """``cards`` as a 36-bit card set (``0`` for a pick-up)."""
    _text: str

    def __new__(cls, *cards: Card) -> Move:
        if len(cards) == 0:
            return TAKE
        if len(cards) == 1:
            return SINGLE_MOVES[Card(cards[0])]
        if len(cards) == 2:
            first, second = Card(cards[0]), Card(cards[1])
            if first == second:
                raise MoveError(f"a move cannot play {first} twice")
            return PAIR_MOVES[first * 36 + second]
        raise MoveError(f"a move plays at most two cards, not {len(cards)}")

    @classmethod
    def _make(cls, cards: tuple[Card, ...]) -> Move:
        move = object.__new__(cls)
        move.cards = cards
        move.mask = sum(1 << card for card in cards)
        move._text = ",".join(map(str, cards)) if cards else "take"
        return move

    @property
    def is_take(self) -> bool:
        """Whether this move picks up from the pile."""
        return not self.cards

    @classmethod
    def parse(cls, text: str) -> Move:
        """Read a move leniently: any case, ``10`` for ``T``, suit symbols, and a
        space, comma or plus between the two cards of a beat.

        >>> Move.parse("7s ah")
        Move('7S,AH')
        >>> Move.parse("7s,")
        Traceback (most recent call last):
        ...
        engine.errors.MoveError: '7s,' is not a move: write take, one card (7C) or a beat and a second card (8C,9D)
        """
        cleaned = text.strip()
        if cleaned.lower() == "take":
            return TAKE
        parts = split_cards(cleaned)
        if not 1 <= len(parts) <= 2 or not all(parts):
            raise MoveError(
                f"{text!r} is not a move: write take, one card (7C) or a beat and a second card (8C,9D)"
            )
        try:
            cards = tuple(Card.parse(p) for p in parts)
        except CardError as exc:
            raise MoveError(f"in move {text!r}: {exc}") from None
        return cls(*cards)

    def __str__(self) -> str:
        return self._text

    def __repr__(self) -> str:
        return f"Move({self._text!r})"

    def __reduce__(self) -> tuple[type[Move], tuple[Card, ...]]:
        return (Move, self.cards)


def split_cards(text: str) -> list[str]:
    """A typed move split into its cards' texts, at a space, comma or plus (the one place that
    says how; the interface splits what players type with it too).

    >>> split_cards("ks 6h"), split_cards(" K♠,6♥ "), split_cards("7s,")
    (['ks', '6h'], ['K♠', '6♥'], ['7s', ''])
    """
    return re.split(r"\s*[,+\s]\s*", text.strip())


TAKE = Move._make(())
SINGLE_MOVES = tuple(Move._make((c,)) for c in ALL_CARDS)
PAIR_MOVES = tuple(
    Move._make((a, b)) if a != b else TAKE  # the diagonal is never looked up
    for a in ALL_CARDS
    for b in ALL_CARDS
)
"""``SINGLE_MOVES[card]`` and ``PAIR_MOVES[36 * beat + second]``: the shared moves."""
