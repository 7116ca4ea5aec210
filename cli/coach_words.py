"""The coach in words: a move's verdict (``trumps analyze``, the analysis screen, the replay) and
what the hint found (F2)."""

from __future__ import annotations

from collections.abc import Callable

from cli.i18n import _, ngettext
from engine import Move
from engine.ai import Advice
from engine.ai.analysis import DRAW_TO_LOSS, ESTIMATED, FORCED, KEPT, WIN_TO_DRAW, WIN_TO_LOSS, Verdict
from engine.ai.proof import DRAW, WIN


def verdict_words(verdict: Verdict, show: Callable[[Move], str] = str) -> str:
    """What the analysis says of the move: ``kept the win (proven)``, ``turned a win into a loss;
    better: K♠,6♥ (proven)``, ``estimated -1.5 cards; best found: 7♦, +0.5``; moves by ``show``."""
    better = show(verdict.better) if verdict.better is not None else ""
    kind = verdict.kind
    if kind == FORCED:
        return _("forced")
    if kind == ESTIMATED:
        if verdict.better is None:
            return _("estimated {played:+.1f} cards: the best move found").format(played=verdict.best or 0.0)
        return _("estimated {played:+.1f} cards; best found: {move}, {best:+.1f}").format(
            played=verdict.played if verdict.played is not None else 0.0,
            move=better,
            best=verdict.best or 0.0,
        )
    if kind == KEPT:
        text = {1: _("kept the win"), 0: _("kept the draw"), -1: _("lost already")}[verdict.before or 0]
    else:
        text = {
            WIN_TO_DRAW: _("turned a win into a draw; better: {move}"),
            WIN_TO_LOSS: _("turned a win into a loss; better: {move}"),
            DRAW_TO_LOSS: _("turned a draw into a loss; better: {move}"),
        }[kind].format(move=better)
    return _("{verdict} (proven)").format(verdict=text)


def advice_words(advice: Advice, show: Callable[[Move], str] = str) -> str:
    """The hint and why: ``K♠,6♥ — wins (proven, 7 moves)``, ``best found: 7♦, estimate +2.3 cards``."""
    move = show(advice.move)
    if advice.forced:
        return _("{move} — the only legal move").format(move=move)
    if advice.value is None:
        return _("best found: {move}, estimate {cards:+.1f} cards").format(
            move=move, cards=advice.estimate or 0.0
        )
    if advice.value == DRAW:
        return _("{move} — draws (proven)").format(move=move)
    moves = advice.moves or 0
    if advice.value == WIN:
        text = ngettext(
            "{move} — wins (proven, {count} move)", "{move} — wins (proven, {count} moves)", moves
        )
    else:
        text = ngettext(
            "{move} — loses anyway (proven, in {count} move)",
            "{move} — loses anyway (proven, in {count} moves)",
            moves,
        )
    return text.format(move=move, count=moves)
