"""The coach in words: a move's verdict (``trumps analyze``, the analysis screen, the replay) and
what the hint found (F2)."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from cli.i18n import _, ngettext
from engine import Move
from engine.ai import Advice
from engine.ai.analysis import (
    DOUBTFUL,
    DRAW_TO_LOSS,
    ESTIMATED,
    ESTIMATED_MISTAKE,
    FORCED,
    KEPT,
    WIN_TO_DRAW,
    WIN_TO_LOSS,
    Verdict,
)
from engine.ai.proof import DRAW, LOSS, WIN


def verdict_words(verdict: Verdict, show: Callable[[Move], str] = str) -> str:
    """What the analysis says of the move: ``kept the win (proven)``, ``turned a win into a loss;
    better: K♠,6♥ (proven)``, ``doubtful (estimated): this move -1.5 cards; best found: 7♦, +0.5
    cards``; moves by ``show``."""
    better = show(verdict.better) if verdict.better is not None else ""
    kind = verdict.kind
    if kind == FORCED:
        return _("forced")
    if kind == ESTIMATED:
        label = {
            None: _("estimated"),
            DOUBTFUL: _("doubtful (estimated)"),
            ESTIMATED_MISTAKE: _("estimated mistake (not proven)"),
        }[verdict.grade]
        best = _value_words(verdict.before, verdict.best)
        if verdict.better is None:
            return _("{label}: {best}, the best move found").format(label=label, best=best)
        return _("{label}: this move {played}; best found: {move}, {best}").format(
            label=label, played=_value_words(verdict.after, verdict.played), move=better, best=best
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


def _value_words(value: int | None, cards: float | None) -> str:
    """One side of an estimate: ``+1.5 cards``, or ``a proven win`` where the search proved it."""
    if value is not None:
        return {WIN: _("a proven win"), DRAW: _("a proven draw"), LOSS: _("a proven loss")}[value]
    return _("{cards:+.1f} cards").format(cards=cards or 0.0)


def marks_words(verdicts: Iterable[Verdict]) -> str:
    """How many moves the coach marks: ``1 proven mistake, 3 doubtful moves (estimated)`` (the
    proven mistakes always named, the estimates when there are some)."""
    verdicts = list(verdicts)
    proven = sum(verdict.mistake for verdict in verdicts)
    estimated = sum(verdict.grade == ESTIMATED_MISTAKE for verdict in verdicts)
    doubtful = sum(verdict.grade == DOUBTFUL for verdict in verdicts)
    parts = [ngettext("{count} proven mistake", "{count} proven mistakes", proven).format(count=proven)]
    if estimated:
        parts.append(
            ngettext(
                "{count} estimated mistake", "{count} estimated mistakes", estimated
            ).format(count=estimated)
        )
    if doubtful:
        parts.append(
            ngettext(
                "{count} doubtful move (estimated)", "{count} doubtful moves (estimated)", doubtful
            ).format(count=doubtful)
        )
    return ", ".join(parts)


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
