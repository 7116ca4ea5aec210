"""Cards, suits and the 36-bit card sets (bitboards) the engine runs on.

A card's index is ``9 * suit + rank`` with suits S H D C (0-3) and ranks
6 7 8 9 T J Q K A (0-8); a set of cards is an ``int`` whose bit ``i`` stands
for the card with index ``i``.

>>> Card.parse("TD"), Card.parse("10♦"), int(Card.parse("ac"))
(Card('TD'), Card('TD'), 35)
>>> [str(c) for c in cards_of(1 << 8 | 1 << 0)]
['6S', 'AS']
"""

from __future__ import annotations

from engine.errors import CardError, NotationError

SUITS = "SHDC"
RANKS = "6789TJQKA"
SUIT_SYMBOLS = "♠♥♦♣"
FULL_DECK = (1 << 36) - 1

SYMBOL_LETTERS = dict(zip(SUIT_SYMBOLS + "♤♡♢♧", SUITS + SUITS, strict=True))
"""Suit symbol → suit letter; the white symbols too, which many fonts and keyboards produce."""


def parse_suit(text: str) -> int:
    """The suit number (0-3) of a suit letter or symbol, in any case.

    >>> parse_suit("h"), parse_suit("♣")
    (1, 3)
    """
    letter = SYMBOL_LETTERS.get(text, text.upper())
    if len(letter) != 1 or letter not in SUITS:
        raise NotationError(f"{text!r} is not a suit: use one of S H D C or ♠ ♥ ♦ ♣")
    return SUITS.index(letter)


class Card(int):
    """One of the 36 cards; an ``int`` equal to its index.

    Cards are shared instances: ``Card(i)`` is always the same object for the
    same ``i``, so building one is a table look-up.
    """

    __slots__ = ()

    def __new__(cls, index: int) -> Card:
        try:
            return _CARDS[index]
        except (IndexError, TypeError):
            raise CardError(f"{index!r} is not a card index (0-35)") from None

    @classmethod
    def _make(cls, index: int) -> Card:
        return int.__new__(cls, index)

    @property
    def suit(self) -> int:
        """Suit number: 0 ♠, 1 ♥, 2 ♦, 3 ♣."""
        return int(self) // 9

    @property
    def rank(self) -> int:
        """Rank number: 0 for the six up to 8 for the ace."""
        return int(self) % 9

    @classmethod
    def parse(cls, text: str) -> Card:
        """Read a card leniently: any case, ``10`` for ``T``, suit symbols.

        >>> Card.parse(" qs "), Card.parse("10♥")
        (Card('QS'), Card('TH'))
        >>> Card.parse("1S")
        Traceback (most recent call last):
        ...
        engine.errors.CardError: '1S' is not a card: a rank 6 7 8 9 T J Q K A then a suit S H D C
        """
        cleaned = text.strip()
        body = cleaned.upper()
        if body.startswith("10"):
            body = "T" + body[2:]
        if len(body) == 2 and body[0] in RANKS:
            try:
                suit = parse_suit(cleaned[-1])
            except NotationError:
                pass
            else:
                return _CARDS[9 * suit + RANKS.index(body[0])]
        raise CardError(f"{text!r} is not a card: a rank 6 7 8 9 T J Q K A then a suit S H D C")

    def __str__(self) -> str:
        return _NAMES[self]

    def __repr__(self) -> str:
        return f"Card({_NAMES[self]!r})"


_NAMES = tuple(r + s for s in SUITS for r in RANKS)
_CARDS: tuple[Card, ...] = tuple(Card._make(i) for i in range(36))
ALL_CARDS = _CARDS


def _chunk_table(offset: int) -> tuple[tuple[Card, ...], ...]:
    return tuple(tuple(_CARDS[offset + i] for i in range(12) if m >> i & 1) for m in range(1 << 12))


# Three 12-bit look-up tables turn a 36-bit set into its cards in index order
# without a bit-by-bit loop: this is in the inner loop of move generation.
_LOW, _MID, _HIGH = _chunk_table(0), _chunk_table(12), _chunk_table(24)


def cards_of(mask: int) -> tuple[Card, ...]:
    """The cards of a set, in index order."""
    return _LOW[mask & 0xFFF] + _MID[mask >> 12 & 0xFFF] + _HIGH[mask >> 24]


def suit_mask(suit: int) -> int:
    """All nine cards of one suit."""
    return 0x1FF << (9 * suit)


def _beats_table() -> tuple[tuple[int, ...], ...]:
    table = []
    for trump in range(4):
        row = []
        for top in range(36):
            suit = top // 9
            higher = (0x1FF << (9 * suit)) & ~((1 << (top + 1)) - 1)
            row.append(higher if suit == trump else higher | suit_mask(trump))
        table.append(tuple(row))
    return tuple(table)


BEATERS: tuple[tuple[int, ...], ...] = _beats_table()
"""``BEATERS[trump][top]``: the set of cards that beat ``top`` for a player whose
trump suit is ``trump`` — higher cards of the same suit, and, unless ``top`` is
itself of that trump suit, every card of it."""
