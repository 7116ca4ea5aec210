"""Who got which trumps when both players asked for the same suit, in words for the screen and the summary."""

from __future__ import annotations

from typing import TYPE_CHECKING

from cli.i18n import N_
from p2p.text import Text

if TYPE_CHECKING:
    from p2p.match import Match


def trump_prefs(match: Match, number: int) -> tuple[str, str] | None:
    """Both players' revealed trump preferences for game ``number`` (player 0's first), once known."""
    from p2p.messages import Reveal

    prefs = {
        seat: link.pref for seat, link in match.links if isinstance(link, Reveal) and link.game == number
    }
    return (prefs[0], prefs[1]) if len(prefs) == 2 else None


def trump_clash(prefs: tuple[str, str], dealer: int, seat: int, peer: str, named_second: bool) -> Text | None:
    """Why ``seat`` or its peer did not get the first choice of trumps, if one did not: both
    asked for the same suit, so the one not dealing keeps it (:func:`p2p.fairdeal.resolve_trumps`).

    The dealer's other suit is called a second choice only when it is one: ours when
    ``named_second`` (``--trump SH``); else the suit that follows in the order ♠ ♥ ♦ ♣, which
    :func:`p2p.fairdeal.preference` takes for whoever named one suit. The peer's is never called
    a choice: nothing says whether it named one.
    """
    from engine.cards import SUIT_SYMBOLS, SUITS

    if prefs[0][0] != prefs[1][0]:
        return None
    wanted, second = (SUIT_SYMBOLS[SUITS.index(prefs[i][j])] for i, j in ((0, 0), (dealer, 1)))
    if dealer != seat:
        template = N_("You both asked for {suit}: you keep it, not dealing; {name} deals and gets {second}.")
    elif named_second:
        template = N_(
            "You both asked for {suit}: {name} keeps it, not dealing; you deal and take your second "
            "choice, {second}."
        )
    else:
        template = N_(
            "You both asked for {suit}: {name} keeps it, not dealing; you deal and get {second}, the "
            "suit after it (you named no second choice)."
        )
    return Text(template, suit=wanted, name=peer, second=second)


def names_second(choice: str | None) -> bool:
    """Whether a ``--trump`` choice names a second suit (``SH``, ``♠♥``), not only a first.

    >>> names_second("SH"), names_second("♤"), names_second(None)
    (True, False, False)
    """
    return choice is not None and len(choice.strip()) == 2
