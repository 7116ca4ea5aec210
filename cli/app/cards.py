"""Cards and moves as people read them: suit symbols or letters, the language's rank
letters, and suit colours.

>>> from engine import Card, Move
>>> card_text(Card.parse("TD")), card_text(Card.parse("TD"), ascii=True)
('10♦', '10D')
>>> move_text(Move.parse("ks 6h"), ascii=True), suit_text(1)
('KS 6H', '♥')
"""

from __future__ import annotations

from cli.i18n import N_, _, ngettext
from engine import Card, Move
from engine.cards import RANKS, SUIT_SYMBOLS, SUITS

SUIT_NAMES = (N_("spades"), N_("hearts"), N_("diamonds"), N_("clubs"))
"""The suits' names, in suit order (marked for translation: the trump question accepts both)."""
_FACES = "JQKA"
_CANONICAL = set(RANKS + SUITS + RANKS.lower() + SUITS.lower())


def face_letters() -> str:
    """The letters of the jack, queen, king and ace in the language in use.

    Ukrainian and Kazakh players write В Д К А (валет, дама, король, and the ace as the
    international letter, in Cyrillic: a Т for туз read as the Latin T of the ten); the other
    languages keep the international J Q K A.
    """
    # Translators: the rank letters of the jack, queen, king and ace, separated by spaces.
    # Keep "J Q K A" unless players of your language customarily print others on cards.
    letters = _("J Q K A").split()
    return "".join(letters) if len(letters) == 4 and all(len(x) == 1 for x in letters) else _FACES


def former_letters() -> str:
    """The letters the cards of the language in use showed before for the jack, queen, king and
    ace, still read when typed: Ukrainian and Kazakh cards showed the ace as Т (туз), which read
    as the Latin T of the ten, and now show А."""
    # Translators: the rank letters your language's cards showed before for the jack, queen, king
    # and ace, separated by spaces, still accepted when typed. Write "J Q K A" if they never changed.
    letters = _("J Q K A, as typed before").split()
    return "".join(letters) if len(letters) == 4 and all(len(x) == 1 for x in letters) else _FACES


def canonical_ranks(text: str) -> str:
    """Typed text with the language's rank letters (those the cards show, and those they showed
    before: :func:`former_letters`) replaced by the canonical ones.

    A local letter that is also a canonical rank or suit letter would be
    ambiguous and is left alone, so canonical notation always reads the same.
    """
    table = {}
    for local in (former_letters(), face_letters()):
        for letter, face in zip(local, _FACES, strict=True):
            if letter != face and letter not in _CANONICAL:
                table[ord(letter.upper())] = face
                table[ord(letter.lower())] = face
    return text.translate(table)


def suit_text(suit: int, ascii: bool = False) -> str:
    """One suit: ``♠`` or ``S``."""
    return SUITS[suit] if ascii else SUIT_SYMBOLS[suit]


def rank_text(card: Card) -> str:
    """A card's rank as printed on it: ``6`` ... ``10`` ... ``A`` (``А`` in Ukrainian)."""
    if card.rank == 4:
        return "10"
    letter = RANKS[card.rank]
    return face_letters()[_FACES.index(letter)] if letter in _FACES else letter


def card_text(card: Card, ascii: bool = False) -> str:
    """One card: ``10♦``, or ``10D`` in ASCII."""
    return rank_text(card) + suit_text(card.suit, ascii)


def move_text(move: Move, ascii: bool = False) -> str:
    """One move: ``K♠ 6♥`` or ``take``."""
    return " ".join(card_text(c, ascii) for c in move.cards) if move.cards else _("take")


def count_cards(count: int) -> str:
    """``1 card``, ``3 cards`` (in the language's plural forms)."""
    return ngettext("{count} card", "{count} cards", count).format(count=count)


def suit_class(suit: int) -> str:
    """The style class of a suit's colour (the style decides two or four colours)."""
    return f"class:suit-{SUITS[suit].lower()}"
