"""The coach in words: a move's verdict (``trumps analyze``, the analysis screen, the replay),
where a game was let go, and what the hint found (F2). Estimates are told as the mover's standing
in cards ahead or behind (the AI's evaluation: worth as much as that many cards fewer in hand),
never as a bare signed number."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from cli.i18n import _, decimal, ngettext
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

EVEN = 0.05
"""Estimates closer to nought than this (in cards) say the players stand even."""


def standing_words(value: int | None, cards: float | None) -> str:
    """How the mover stands after a move, as the search sees it: ``a proven win``, or by the
    AI's estimate in cards ahead or behind (``1.5 cards ahead``: worth as much as 1.5 cards fewer in
    hand than the other player; ``about even``)."""
    if value is not None:
        return {WIN: _("a proven win"), DRAW: _("a proven draw"), LOSS: _("a proven loss")}[value]
    cards = cards or 0.0
    if abs(cards) < EVEN:
        return _("about even")
    if cards > 0:
        return ngettext("{cards} card ahead", "{cards} cards ahead", 1 if round(cards, 1) == 1 else 2).format(
            cards=decimal(cards)
        )
    return ngettext("{cards} card behind", "{cards} cards behind", 1 if round(-cards, 1) == 1 else 2).format(
        cards=decimal(-cards)
    )


def verdict_words(verdict: Verdict, show: Callable[[Move], str] = str) -> str:
    """What the analysis says of the move: ``kept the win (proven)``, ``turned a win into a loss;
    better: K♠ 6♥ (proven)``, ``doubtful (estimated): after it 1.5 cards behind; after 7♦, the best
    move found, 0.5 cards ahead``; moves by ``show``, standings from the mover's side."""
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
        best = standing_words(verdict.before, verdict.best)
        if verdict.better is None:
            return _("{label}: the best move found, {best} after it").format(label=label, best=best)
        return _("{label}: after it {played}; after {move}, the best move found, {best}").format(
            label=label, played=standing_words(verdict.after, verdict.played), move=better, best=best
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


def turning_words(verdicts: Iterable[Verdict], show: Callable[[Move], str] = str) -> str | None:
    """Where the player of ``verdicts`` let the game go, as far as the search proves it: the
    first proven mistake (``The game was lost at move 11: 9♥ turned the draw into a loss; 10♥ 8♠
    kept it (proven).``), or the first move before which the position was proven lost already
    (the loss came earlier, where only estimates reach), or the first after which it was;
    ``None`` when none is."""
    for verdict in verdicts:
        number, move = verdict.index + 1, show(verdict.move)
        better = show(verdict.better) if verdict.better is not None else ""
        if verdict.kind in (WIN_TO_LOSS, DRAW_TO_LOSS):
            kept = _("the win") if verdict.kind == WIN_TO_LOSS else _("the draw")
            return _(
                "The game was lost at move {number}: {move} turned {kept} into a loss; {better} kept it (proven)."
            ).format(number=number, move=move, kept=kept, better=better)
        if verdict.kind == WIN_TO_DRAW:
            return _(
                "The win was let go at move {number}: {move} turned it into a draw; {better} kept it (proven)."
            ).format(number=number, move=move, better=better)
        if verdict.proven and verdict.before == LOSS:
            return _(
                "The game was lost already (proven) before move {number}: the loss came earlier, "
                "where the search proves nothing; the marked estimates are the places to look."
            ).format(number=number)
        if verdict.after == LOSS:  # an estimate before it: where the proof begins
            return _(
                "The game was lost (proven) after move {number}, {move}; whether it was lost before, the "
                "search cannot prove: the marked estimates are the places to look."
            ).format(number=number, move=move)
    return None


def advice_words(advice: Advice, show: Callable[[Move], str] = str, opponent: str = "") -> str:
    """The hint and why, in words a player reads: ``K♠ 6♥ wins the game (proven, 7 moves to the
    end)``, ``7♦, the best move found: after it you look 2.3 cards ahead of Bob (an estimate, not
    proven)`` (``opponent``: the other player's name)."""
    move = show(advice.move)
    if advice.forced:
        return _("{move} — the only legal move").format(move=move)
    if advice.value is None:
        cards = advice.estimate or 0.0
        if abs(cards) < EVEN:
            text = _("{move}, the best move found: after it you and {name} look even (an estimate, not proven)")
        elif cards > 0:
            text = _(
                "{move}, the best move found: after it you look {cards} cards ahead of {name} (an estimate, not proven)"
            )
        else:
            text = _(
                "{move}, the best move found: after it you look {cards} cards behind {name} (an estimate, not proven)"
            )
        return text.format(move=move, cards=decimal(abs(cards)), name=opponent or _("the other player"))
    if advice.value == DRAW:
        return _("{move} — draws (proven)").format(move=move)
    moves = advice.moves or 0
    if advice.value == WIN:
        text = ngettext(
            "{move} wins the game (proven, {count} move to the end)",
            "{move} wins the game (proven, {count} moves to the end)",
            moves,
        )
    else:
        text = ngettext(
            "{move}: the game is lost whatever you play (proven, {count} move to the end)",
            "{move}: the game is lost whatever you play (proven, {count} moves to the end)",
            moves,
        )
    return text.format(move=move, count=moves)
