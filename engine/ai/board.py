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

from collections.abc import Iterable, Iterator, Sequence
from functools import cache
from typing import NamedTuple

from engine.ai.greedy import COSTS
from engine.cards import BEATERS, cards_of, suit_mask
from engine.moves import PAIR_MOVES, SINGLE_MOVES, TAKE, Move
from engine.position import Position

_ACE = 8

Key = tuple[int, int, int, int]
"""A position for the search: (mover's hand, other hand, pile code, turn)."""


class SuitSwap(NamedTuple):
    """The swap of the two suits that are nobody's trump: an exact symmetry of the rules.

    Swapping them in both hands and on the pile gives a position of the same value (with the
    moves swapped too), so the searches store each pair of such twins under one table key.
    """

    low: int
    """The cards of the lower of the two suits (by index)."""
    shift: int
    """How far the higher suit's bits lie above the lower's: 9 times the suits' distance."""
    keep: int
    """The cards of the two trump suits, which the swap leaves in place."""
    codes: tuple[int, ...]
    """``codes[code]``: the twin of a move code (0, a single card or a beat and a second card);
    a 6-bit pile slot is a single card's code, so this maps those too."""

    def hand(self, hand: int) -> int:
        """The twin of a set of cards."""
        low, shift = self.low, self.shift
        return hand & self.keep | (hand & low) << shift | (hand >> shift) & low

    def pile(self, pile: int) -> int:
        """The twin of a pile code."""
        twin = 0
        for slot in range(0, pile.bit_length(), 6):
            twin |= self.codes[pile >> slot & 63] << slot
        return twin

    def key(self, key: int) -> int:
        """The twin of a proof key (pile, turn and both hands in one int: ``proof_key``)."""
        mask = (1 << 36) - 1
        hands = self.hand(key >> 36 & mask) << 36 | self.hand(key & mask)
        return self.pile(key >> 73) << 73 | (key >> 72 & 1) << 72 | hands

    def table_key(self, key: int) -> tuple[int, bool]:
        """The one key a table keeps a position (a proof key) and its twin under, and whether the
        position is the twin of that key ("flipped"). Of the two, the key is the one with the
        lesser other hand, then the lesser mover's hand, then the lesser pile: the hands are cheap
        to swap, so the searches decide from them and swap the pile only for the key itself.

        >>> from engine import Position
        >>> p = Position.from_notation("7H8C/9H/6C SD 0")
        >>> twin = Position.from_notation("7C8H/9C/6H SD 0")  # hearts and clubs swapped
        >>> swap = suit_swap(p.trumps)
        >>> from engine.ai.proof import proof_key
        >>> swap.table_key(proof_key(p))[0] == swap.table_key(proof_key(twin))[0]
        True
        >>> swap.table_key(proof_key(p))[1] != swap.table_key(proof_key(twin))[1]
        True
        """
        mask = (1 << 36) - 1
        pile = key >> 73
        stored = shared_key(key, key & mask, key >> 36 & mask, pile, self.pile(pile), key >> 72 & 1, *self[:3])
        return stored, stored != key


def shared_key(
    key: int, me: int, opp: int, pile: int, twin_pile: int, turn: int, low: int, shift: int, keep: int
) -> int:
    """:meth:`SuitSwap.table_key` of the proof key ``key`` (``me``, ``opp``, ``pile``, ``turn``), given
    the twin of its pile; a position that is its own twin is its key (not flipped).

    The twin is the lesser by the other hand, then the mover's, then the pile; a hand's twin is the
    lesser if its cards of the lower free suit are (their bits, shifted up, outweigh the other
    suit's). Both searches call it at every node.
    """
    opp_low, opp_high = opp & low, opp >> shift & low
    if opp_low != opp_high:
        if opp_low > opp_high:
            return key
    else:
        me_low, me_high = me & low, me >> shift & low
        if me_low > me_high or (me_low == me_high and twin_pile >= pile):
            return key
    return (
        twin_pile << 73
        | turn << 72
        | (opp & keep | opp_low << shift | opp_high) << 36
        | me & keep
        | (me & low) << shift
        | me >> shift & low
    )


@cache
def suit_swap(trumps: tuple[int, int]) -> SuitSwap:
    """The :class:`SuitSwap` of the two suits that are not in ``trumps``.

    >>> from engine.cards import Card
    >>> swap = suit_swap((0, 2))  # spades and diamonds are trumps: hearts and clubs swap
    >>> str(Card(swap.codes[Card.parse("7H") + 1] - 1)), str(move_of(swap.codes[(11 << 6) | 28]))  # 7H,6C
    ('7C', '7C,6H')
    """
    lower, higher = (s for s in range(4) if s not in trumps)
    shift = 9 * (higher - lower)
    card = [c + shift if c // 9 == lower else c - shift if c // 9 == higher else c for c in range(36)]
    codes = [0] * (37 << 6)
    for code in range(1, 37):
        codes[code] = card[code - 1] + 1
    for beat in range(36):
        for second in range(36):
            codes[(beat + 1) << 6 | (second + 1)] = codes[beat + 1] << 6 | codes[second + 1]
    keep = suit_mask(trumps[0]) | suit_mask(trumps[1])
    return SuitSwap(suit_mask(lower), shift, keep, tuple(codes))


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


def position_key(position: Position) -> Key:
    """The search's key of a position: mover's hand, other hand, pile code, turn."""
    turn = position.turn
    hands = position.hand_sets
    return (hands[turn], hands[1 - turn], pile_code(position.pile), turn)


def root_codes(position: Position) -> Iterator[int]:
    """The codes of the legal moves of ``position``, in the order the search tries them."""
    me, opp, pile, turn = position_key(position)
    trump = position.trumps[turn]
    beat_set = me & BEATERS[trump][(pile & 63) - 1] if pile else 0
    if pile and not beat_set:
        return iter((0,))
    theirs = BEATERS[position.trumps[1 - turn]]
    return ordered_moves(me, opp, beat_set, theirs, COSTS[trump], position.rules.voluntary, -1, -1)


def child(me: int, pile: int, code: int, trump: int) -> tuple[int, int]:
    """The mover's hand and the pile after the move ``code``."""
    if code == 0:
        top = (pile & 63) - 1
        taking = 3 if top // 9 != trump else 36 if top % 9 == _ACE else 5
        while taking and pile:
            me |= 1 << ((pile & 63) - 1)
            pile >>= 6
            taking -= 1
        return me, pile
    if code < 64:
        return me ^ (1 << (code - 1)), pile << 6 | code
    return me ^ (1 << ((code >> 6) - 1)) ^ (1 << ((code & 63) - 1)), pile << 12 | code


def ordered_moves(
    me: int,
    opp: int,
    beat_set: int,
    theirs: tuple[int, ...],
    costs: tuple[int, ...],
    voluntary: bool,
    tried: int,
    also_tried: int,
    their_ace: int | None = None,
) -> Iterator[int]:
    """The moves but ``tried`` and ``also_tried`` (table and killer moves), likeliest best first.

    Generated lazily, since a cut-off usually comes after a few: beats from the
    cheapest, each with its seconds from the one the opponent can least beat.
    With an empty pile (``beat_set`` 0 and nothing to beat) they are leads.
    Given ``their_ace`` (the ace of the other's trumps), a move like one before it (its cards of the
    same :func:`card_classes`) comes after :data:`EQUIVALENTS`, with all such moves, in order.
    """
    classes = None if their_ace is None else card_classes(me, opp, their_ace)
    seconds = sorted(cards_of(me), key=lambda c: (opp & theirs[c]).bit_count() << 5 | costs[c])
    if not beat_set:
        leads = seconds if classes is None else [c for c in seconds if classes[c] == c]
        for card in leads:
            if card + 1 != tried and card + 1 != also_tried:
                yield card + 1
        if classes is not None:
            later = [c + 1 for c in seconds if classes[c] != c and c + 1 != tried and c + 1 != also_tried]
            if later:
                yield EQUIVALENTS
                yield from later
        return
    if beat_set == me and not me & (me - 1):
        if me.bit_length() != tried:
            yield me.bit_length()  # beating with one's last card: no second card
    else:
        beats = sorted(cards_of(beat_set), key=costs.__getitem__)
        # With classes: each beat that is the lowest of its class among the beats, with the seconds
        # that are the lowest of theirs in the hand left (where the next of the beat's class leads it).
        firsts_of: Sequence[tuple[int, Sequence[int]]] = (
            [(beat, seconds) for beat in beats] if classes is None else _first_pairs(me, beat_set, beats, seconds, classes)
        )
        for beat, firsts in firsts_of:
            head = (beat + 1) << 6
            for second in firsts:
                code = head | (second + 1)
                if second != beat and code != tried and code != also_tried:
                    yield code
        if classes is not None:
            if voluntary and tried:
                yield 0  # a pick-up is like no other move
            taken = {beat: set(firsts) for beat, firsts in firsts_of}
            marked = False
            for beat in beats:
                head = (beat + 1) << 6
                skip = taken.get(beat, ())
                for second in seconds:
                    code = head | (second + 1)
                    if second != beat and second not in skip and code != tried and code != also_tried:
                        if not marked:
                            yield EQUIVALENTS
                            marked = True
                        yield code
            return
    if voluntary and tried:
        yield 0


def _first_pairs(
    me: int, beat_set: int, beats: Sequence[int], seconds: Sequence[int], classes: dict[int, int]
) -> list[tuple[int, Sequence[int]]]:
    """The beats that are the lowest of their class among the beats, each with the seconds that are
    the lowest of their class in the hand left: :func:`ordered_moves` with classes."""
    pairs: list[tuple[int, Sequence[int]]] = []
    for beat in beats:
        lowest = classes[beat]
        if lowest != beat:
            below = me & ((1 << beat) - 1) & (0x1FF << (9 * (beat // 9)))
            if beat_set >> (below.bit_length() - 1) & 1:
                continue  # a lower card of its class beats too
        # The beat leaves the hand: the next card of its class becomes the lowest of what is left.
        above = me & ~((2 << beat) - 1) & (0x1FF << (9 * (beat // 9)))
        following = (above & -above).bit_length() - 1
        if following < 0 or classes[following] != lowest or lowest != beat:
            following = -1
        pairs.append((beat, [c for c in seconds if classes[c] == c or c == following]))
    return pairs


EQUIVALENTS = -2
"""What :func:`classed_moves` yields between the first move of each class and the rest."""


def card_classes(me: int, opp: int, their_ace: int) -> dict[int, int]:
    """Each card of ``me``, mapped to the lowest card of its class: the cards of one suit with no card
    of ``opp`` between them, which the other answers alike. ``their_ace`` (the ace of the other's
    trumps, which makes them take the whole pile) is a class of its own.

    The likeness is not exact (played cards come back through pick-ups, docs/ai.md), so only the
    alpha-beta search uses it.

    >>> from engine.cards import Card
    >>> hand = sum(1 << Card.parse(c) for c in ("7H", "8H", "TH", "QH", "AH"))
    >>> classes = card_classes(hand, 1 << Card.parse("JH"), Card.parse("AH"))
    >>> [(str(Card(c)), str(Card(k))) for c, k in classes.items()]
    [('7H', '7H'), ('8H', '7H'), ('TH', '7H'), ('QH', 'QH'), ('AH', 'AH')]
    """
    classes: dict[int, int] = {}
    previous = start = -9
    for card in cards_of(me):
        if card // 9 != previous // 9 or opp & ((1 << card) - (2 << previous)) or card == their_ace:
            start = card
        classes[card] = start
        previous = card
    return classes
