"""The coach's engine side: a verdict on each move of a finished (or unfinished) game.

For every move the analysis searches the position before it and the position
after it (the search proves the exact value where it can, see
engine/ai/proof.py). A move whose position was won and is now drawn or lost
(or drawn and now lost) is a *mistake*, and the move the search found keeps
the value; where the values are not both proven the verdict is *estimated*,
with the evaluation (in cards, from the mover's view) of the move played and
of the best move found. An estimate whose best move found looks much better is
graded (:attr:`Verdict.grade`) *doubtful* or an *estimated mistake*: a
judgement of the evaluation, never a proof (the thresholds are measured by
``benchmarks/coach.py``).

:func:`analyze` yields one :class:`Verdict` a move, in order, so that a caller
can show its progress and stop when it likes. Its budget is in nodes, never the
clock, so the same game gets the same verdicts on every run and every machine.

>>> from engine import Game, Position
>>> game = Game(Position.from_notation("9HJHQHKD/TC/8H SH 0"))
>>> for move in ("QH,KD", "take", "9H", "QH,TC", "take", "KD", "take", "8H"):  # QH,KD throws the win away
...     _ = game.play(move)
>>> first = next(analyze(game, nodes=20_000))
>>> first.kind, first.before, first.after, str(first.better) in ("9H,JH", "9H,KD", "JH,9H", "JH,KD")
('win to loss', 1, -1, True)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import repeat

from engine.ai.proof import DRAW, LOSS, WIN, ProofCache
from engine.ai.search import MATE_BOUND, SearchResult, search
from engine.game import Game
from engine.moves import Move
from engine.position import Outcome, Position

KEPT = "kept"
"""The move keeps the proven value (a win, a draw, or a position lost already)."""
WIN_TO_DRAW = "win to draw"
WIN_TO_LOSS = "win to loss"
DRAW_TO_LOSS = "draw to loss"
ESTIMATED = "estimated"
"""The values are not both proven: compare the evaluations."""
FORCED = "forced"
"""The only legal move."""
MISTAKES = (WIN_TO_DRAW, WIN_TO_LOSS, DRAW_TO_LOSS)

DOUBTFUL = "doubtful"
"""An estimate's grade: the best move found looks better than the one played by at least
:data:`DOUBTFUL_DROP` cards (chess's "dubious move"); never a proof."""
ESTIMATED_MISTAKE = "estimated mistake"
"""An estimate's grade: the best move found looks better by at least :data:`MISTAKE_DROP` cards
(a mistake by the evaluation, not a proven one)."""
DOUBTFUL_DROP = 2.5
"""In cards. Measured (``benchmarks/coach.py``, docs/ai.md): two searches of one position disagree
by this much in 1-2% of the estimated moves, and 6-9% of them drop this much or more."""
MISTAKE_DROP = 5.0
"""In cards: the worst 3-4% of the estimated moves."""


@dataclass(frozen=True, slots=True)
class Verdict:
    """What the analysis says about one move, from the point of view of the player who made it."""

    index: int
    """The move's index in ``game.moves`` (its number less one)."""
    player: int
    move: Move
    kind: str
    """:data:`KEPT`, one of :data:`MISTAKES`, :data:`ESTIMATED` or :data:`FORCED`."""
    before: int | None
    """The proven value before the move (``WIN``, ``DRAW``, ``LOSS``), or ``None``."""
    after: int | None
    """The proven value after the move played, or ``None``."""
    better: Move | None
    """A move that keeps the value (for a mistake), or for an estimate the best move found when it
    is another and looks better than the one played."""
    played: float | None
    """For an estimate: the evaluation of the move played, in cards (mover's view)."""
    best: float | None
    """For an estimate: the evaluation of the best move found, in cards."""

    @property
    def proven(self) -> bool:
        """Whether the verdict rests on proofs (not on the evaluation)."""
        return self.kind not in (ESTIMATED, FORCED)

    @property
    def mistake(self) -> bool:
        """Whether the move turned a win into a draw or a loss, or a draw into a loss."""
        return self.kind in MISTAKES

    @property
    def grade(self) -> str | None:
        """For an estimate whose best move found looks better than the one played by
        :data:`MISTAKE_DROP` cards or more: :data:`ESTIMATED_MISTAKE`; by :data:`DOUBTFUL_DROP`
        or more: :data:`DOUBTFUL`; otherwise (and for every proven verdict) ``None``.

        >>> six, seven = Move.parse("6D"), Move.parse("7D")
        >>> Verdict(0, 0, six, ESTIMATED, None, None, seven, -1.5, 4.0).grade
        'estimated mistake'
        >>> Verdict(0, 0, six, ESTIMATED, None, None, seven, -1.5, 1.5).grade
        'doubtful'
        >>> Verdict(0, 0, six, ESTIMATED, None, None, None, -1.5, 4.0).grade is None  # its own move
        True
        >>> Verdict(0, 0, six, ESTIMATED, WIN, None, seven, 1.5, 999.9).grade  # it may win as well
        'doubtful'
        """
        if self.kind != ESTIMATED or self.better is None or self.played is None or self.best is None:
            return None
        drop = self.best - self.played
        if drop >= MISTAKE_DROP and self.before != WIN:
            return ESTIMATED_MISTAKE
        # Leaving a proven win for a move not proven is doubtful at most: that move may win too.
        return DOUBTFUL if drop >= DOUBTFUL_DROP else None


def analyze(
    game: Game,
    players: Iterable[int] = (0, 1),
    *,
    nodes: int,
    map_searches: Callable[..., Iterator[SearchResult]] = map,
) -> Iterator[Verdict]:
    """Verdicts on the moves of ``players`` in ``game``, one at a time, each position searched
    within ``nodes``: a budget of work, not time, so that every run gives the same verdicts.

    The searches are run by ``map_searches(search_position, positions, histories, budgets)``, which
    must yield their results in order: the builtin :func:`map` by default, one after another as the
    verdicts need them, or a process pool's ``map`` to run them on several cores (each search
    starts from nothing, so the verdicts are the same either way).
    """
    chosen = set(players)
    positions = game.positions
    moves = game.moves
    needed = _searched_indices(game, chosen)
    histories = (positions[:index] for index in needed)
    results = map_searches(search_position, (positions[index] for index in needed), histories, repeat(nodes))
    arriving = zip(needed, results, strict=True)
    found: dict[int, SearchResult] = {}

    def searched(index: int) -> SearchResult:
        # Each position is searched once: the one after a move is the one before the next.
        while index not in found:
            at, result = next(arriving)
            found[at] = result
        return found[index]

    for index, move in enumerate(moves):
        position = positions[index]
        player = position.turn
        if player not in chosen:
            continue
        if len(position.legal_moves()) == 1:
            yield Verdict(index, player, move, FORCED, None, None, None, None, None)
            continue
        before_result = searched(index)
        before = _value(before_result)
        ended = game.result if index + 1 == len(moves) else None
        if ended is not None:
            after: int | None = _outcome_value(ended, player)
            after_result = None
        else:
            after_result = searched(index + 1)
            opponent_value = _value(after_result)
            after = None if opponent_value is None else -opponent_value
        better = before_result.move if before_result.move is not move else None
        if before is not None and after is None and (before == LOSS or better is None):
            after = before  # a lost position stays lost; the proof's own move keeps the value
        if before is None and after == WIN:
            before = WIN  # a move that wins proves the position before it won
        if before is not None and after is not None:
            kind = KEPT if after >= before else _MISTAKE[before, after]
            yield Verdict(
                index, player, move, kind, before, after, better if kind != KEPT else None, None, None
            )
            continue
        played = None if after_result is None else -after_result.score / 100
        best = before_result.score / 100
        if played is not None and played >= best:
            better = None  # two searches, two estimates: the one played looks no worse
        yield Verdict(index, player, move, ESTIMATED, before, after, better, played, best)


def search_position(position: Position, history: Sequence[Position], nodes: int) -> SearchResult:
    """The search behind a verdict: ``position``, reached through ``history``, within ``nodes``,
    from an empty cache (its result depends on nothing else)."""
    return search(position, history, nodes=nodes, cache=ProofCache())


def _searched_indices(game: Game, chosen: set[int]) -> list[int]:
    """The positions of ``game`` whose searches the verdicts on ``chosen`` players' moves need, in
    order: before each move not forced, and after it unless the game ended there."""
    needed: set[int] = set()
    for index, position in enumerate(game.positions[: len(game.moves)]):
        if position.turn in chosen and len(position.legal_moves()) > 1:
            needed.add(index)
            if not (index + 1 == len(game.moves) and game.result is not None):
                needed.add(index + 1)
    return sorted(needed)


_MISTAKE = {(WIN, DRAW): WIN_TO_DRAW, (WIN, LOSS): WIN_TO_LOSS, (DRAW, LOSS): DRAW_TO_LOSS}


def _value(result: SearchResult) -> int | None:
    if not result.proven:
        return None
    return WIN if result.score > MATE_BOUND else LOSS if result.score < -MATE_BOUND else DRAW


def _outcome_value(outcome: Outcome, player: int) -> int:
    return DRAW if outcome.winner is None else WIN if outcome.winner == player else LOSS
