"""Cards and moves as people read them: suit symbols or letters, and suit colours.

>>> from engine import Card, Move
>>> card_text(Card.parse("TD")), card_text(Card.parse("TD"), ascii=True)
('10♦', '10D')
>>> move_text(Move.parse("ks 6h"), ascii=True), suit_text(1)
('KS 6H', '♥')
"""

from __future__ import annotations

from engine import Card, Move
from engine.cards import RANKS, SUIT_SYMBOLS, SUITS

SUIT_NAMES = ("spades", "hearts", "diamonds", "clubs")


def suit_text(suit: int, ascii: bool = False) -> str:
    """One suit: ``♠`` or ``S``."""
    return SUITS[suit] if ascii else SUIT_SYMBOLS[suit]


def rank_text(card: Card) -> str:
    """A card's rank as printed on it: ``6`` ... ``10`` ... ``A``."""
    return "10" if card.rank == 4 else RANKS[card.rank]


def card_text(card: Card, ascii: bool = False) -> str:
    """One card: ``10♦``, or ``10D`` in ASCII."""
    return rank_text(card) + suit_text(card.suit, ascii)


def move_text(move: Move, ascii: bool = False) -> str:
    """One move: ``K♠ 6♥`` or ``take``."""
    return " ".join(card_text(c, ascii) for c in move.cards) if move.cards else "take"


def count_cards(count: int) -> str:
    """``1 card``, ``3 cards``."""
    return f"{count} card{'s' if count != 1 else ''}"


def suit_class(suit: int) -> str:
    """The style class of a suit's colour (the style decides two or four colours)."""
    return f"class:suit-{SUITS[suit].lower()}"
