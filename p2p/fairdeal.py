"""The fair deal: commitments, reveals, the deck seed, the first dealer and the trumps.

Before a game each player commits to a fresh secret and a trump preference
(a first and a different second suit); only once both commitments are held
does anyone reveal. The seed mixes both secrets, so whoever commits cannot
know, and cannot steer, the deal:

>>> session = bytes(32)
>>> a, b = Pledge("SH", bytes(32)), Pledge("SD", bytes([1]) * 32)
>>> a.commitment(session, game=1, seat=0).hex()[:16]
'e538d1d4baf31897'
>>> resolve_trumps(("SH", "SD"), dealer=1)  # both want spades: the elder (0) keeps them
'SD'
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from engine.cards import SUITS
from p2p.crypto import tagged_hash
from p2p.text import N_, Text


def _game_bytes(game: int) -> bytes:
    return game.to_bytes(4, "big")


@dataclass(frozen=True)
class Pledge:
    """One player's hidden choice for one game: trump preference and secret."""

    pref: str
    secret: bytes

    @classmethod
    def fresh(cls, pref: str) -> Pledge:
        """A pledge with 32 new random bytes from the operating system."""
        return cls(pref, os.urandom(32))

    def commitment(self, session_id: bytes, game: int, seat: int) -> bytes:
        """SHA-256 over the domain tag, session, game, role, preference and secret."""
        return tagged_hash(
            "commit", session_id, _game_bytes(game), bytes([seat]), self.pref.encode(), self.secret
        )


def game_seed(session_id: bytes, game: int, secrets: tuple[bytes, bytes]) -> bytes:
    """The deck seed for ``engine.deal``, from both players' secrets (player 0's first)."""
    return tagged_hash("seed", session_id, _game_bytes(game), secrets[0], secrets[1])


def coin(session_id: bytes, secrets: tuple[bytes, bytes]) -> int:
    """The shared coin of the first game's reveals: the first dealer (0 or 1)."""
    return tagged_hash("coin", session_id, secrets[0], secrets[1])[0] & 1


def resolve_trumps(prefs: tuple[str, str], dealer: int) -> str:
    """Each player's trump suit (``"SH"``: player 0 then 1) from the two preferences.

    Each gets their first choice; when both chose the same suit the elder keeps
    it and the dealer gets their second choice.
    """
    suits = [prefs[0][0], prefs[1][0]]
    if suits[0] == suits[1]:
        suits[dealer] = prefs[dealer][1]
    return "".join(suits)


def preference(choice: str | None) -> str:
    """A two-suit preference from a player's ``--trump`` choice (``S``, ``SH``, ♠…), random if none.

    >>> preference("h"), preference("♦c")
    ('HD', 'DC')
    """
    from engine.cards import parse_suit

    if not choice:
        first = SUITS[os.urandom(1)[0] % 4]
        return first + SUITS[(SUITS.index(first) + 1 + os.urandom(1)[0] % 3) % 4]
    try:
        suits = [SUITS[parse_suit(c)] for c in choice.strip()]
    except ValueError:
        suits = []
    if not 1 <= len(suits) <= 2 or (len(suits) == 2 and suits[0] == suits[1]):
        template = N_("--trump takes one suit or two different suits (like S or SH), not {choice!r}")
        raise ValueError(Text(template, choice=choice))
    if len(suits) == 1:
        suits.append(SUITS[(SUITS.index(suits[0]) + 1) % 4])
    return "".join(suits)
