"""How the duel commands put the terms and a yes into words."""

from __future__ import annotations

from typing import TYPE_CHECKING

from cli.i18n import N_, _, translated
from p2p.text import ntext

if TYPE_CHECKING:
    from p2p.handshake import Terms


def describe(terms: Terms) -> str:
    """The terms in words, for the person deciding on them (the invite's rules, not the
    notation's ``pickup=forced sixes=on max_moves=1000``)."""
    if terms.games == 1:
        games = _("one game")
    else:
        games = translated(ntext("a match of {count} game", "a match of {count} games", terms.games))
    rules = terms.rules
    pickup = _(N_("forced pick-up") if rules.pickup == "forced" else N_("voluntary pick-up"))
    sixes = _(N_("the trump sixes change hands") if rules.sixes else N_("the sixes stay where dealt"))
    cap = translated(ntext("a draw after {count} move", "a draw after {count} moves", rules.max_moves))
    hints = _(
        N_("AI hints allowed, each use shown to the other player") if terms.hints else N_("no AI hints")
    )
    return f"{games}, {pickup}, {sixes}, {cap}, {hints}"


def yes_words() -> set[str]:
    """What counts as yes to a ``[y/N]`` question, in English and in the interface's language."""
    return {"y", "yes", *_("y yes").lower().split()}
