"""The deterministic shuffle and deal of notation.md, bit for bit.

>>> " ".join(map(str, shuffled_deck(b"")[:5]))
'8S 8C 7S 6H JD'
>>> deal(bytes(32), dealer=0, trumps="SH").turn  # the elder moves first
1
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator

from engine.cards import ALL_CARDS, Card
from engine.errors import PositionError
from engine.position import DEFAULT_RULES, Position, parse_trumps
from engine.rules import Rules


def _stream(seed: bytes) -> Iterator[int]:
    """``next_u32()`` values: SHA-256(seed ‖ counter) digests read 4 bytes at a time."""
    counter = 0
    while True:
        digest = hashlib.sha256(seed + counter.to_bytes(4, "big")).digest()
        for i in range(0, 32, 4):
            yield int.from_bytes(digest[i : i + 4], "big")
        counter += 1


def shuffled_deck(seed: bytes) -> list[Card]:
    """The 36 cards in the order the seed shuffles them (``deck[0]`` first)."""
    words = _stream(seed)
    deck = list(ALL_CARDS)
    for i in range(35, 0, -1):
        n = i + 1
        limit = 2**32 - (2**32 % n)
        x = next(words)
        while x >= limit:
            x = next(words)
        j = x % n
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def deal(seed: bytes, dealer: int, trumps: str, rules: Rules = DEFAULT_RULES) -> Position:
    """The position after shuffling with ``seed`` and dealing, the elder to move.

    The elder (``1 - dealer``) gets ``deck[0]``, ``deck[2]``, ...; then, under
    ``rules.sixes``, each player hands over the six of the other's trump suit.
    """
    if dealer not in (0, 1):
        raise PositionError(f"the dealer must be player 0 or 1, not {dealer!r}")
    trump_pair = parse_trumps(trumps)
    elder = 1 - dealer
    hands = [0, 0]
    for k, card in enumerate(shuffled_deck(seed)):
        hands[elder if k % 2 == 0 else dealer] |= 1 << card
    if rules.sixes:
        sixes = [1 << (9 * trump_pair[1]), 1 << (9 * trump_pair[0])]  # what each player gives
        gifts = [hands[p] & sixes[p] for p in (0, 1)]
        hands = [hands[0] ^ gifts[0] | gifts[1], hands[1] ^ gifts[1] | gifts[0]]
    return Position((hands[0], hands[1]), (), trump_pair, elder, rules)
