"""How the coach's estimates fall on real games: the measurement behind the thresholds of
doubtful moves and estimated mistakes (engine/ai/analysis.py, docs/ai.md "The coach").

Self-play games (``hard`` at a node budget against ``medium``, seats taking turns, so every
game is deterministic) are analysed for both players at a node budget a position. For the
estimated verdicts it prints the *drop* — the best move found's evaluation less the one
played's, in cards — and, by size of drop, how often the next proven value of the game went
against the mover (a proven loss for them). The same figures for the moves that were the
search's own choice show the noise of two searches' estimates. Run::

    python benchmarks/coach.py --games 8 --nodes 50000

Single process, bounded by ``--games``; about 2.5 minutes with the defaults (158 s measured on
the shared 2-core machine).
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import time
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path

# Run as a script, this folder heads sys.path and this file would shadow the engine package.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]

from engine import Game, deal  # noqa: E402
from engine.ai import choose  # noqa: E402
from engine.ai.analysis import (  # noqa: E402
    DOUBTFUL_DROP,
    ESTIMATED,
    MISTAKE_DROP,
    Verdict,
    analyze,
)
from engine.ai.proof import LOSS  # noqa: E402

TRUMP_PAIRS = [a + b for a in "SHDC" for b in "SHDC" if a != b]
EDGES = (0.25, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 10.0, 50.0)
"""The drop buckets' lower edges, in cards (from 50 on: a proven win or loss on one side, the
other an estimate)."""


@dataclass(frozen=True)
class Sample:
    """One estimated verdict, with what the game proved later."""

    drop: float
    """Best found less played, in cards; 0 when there was nothing better to play."""
    own: bool
    """The move played was the search's own choice (a positive drop is then only noise)."""
    later_loss: bool
    """The next proven value of the game, from the mover's view, is a loss."""
    level: str


def self_play(index: int, hard_nodes: int) -> tuple[Game, tuple[str, str]]:
    """Game ``index`` of the series: ``hard`` against ``medium``, seats swapped every other game."""
    seed = hashlib.sha256(f"coach-bench {index}".encode()).digest()
    levels = ("hard", "medium") if index % 2 == 0 else ("medium", "hard")
    game = Game(deal(seed, 0, TRUMP_PAIRS[seed[0] % len(TRUMP_PAIRS)]))
    while game.result is None:
        position = game.position
        level = levels[position.turn]
        nodes = hard_nodes if level == "hard" else None
        game.play(choose(position, level, nodes=nodes, history=game.positions))
    return game, levels


def later_loss(verdicts: list[Verdict], at: int, game: Game) -> bool:
    """Whether the first value proven after verdict ``at`` (or the game's result) is a loss for
    that verdict's mover."""
    mover = verdicts[at].player
    for verdict in verdicts[at + 1 :]:
        if verdict.before is not None:
            return (verdict.before if verdict.player == mover else -verdict.before) == LOSS
    result = game.result
    return result is not None and result.winner is not None and result.winner != mover


def samples(game: Game, levels: tuple[str, str], nodes: int) -> list[Sample]:
    """The estimated verdicts of ``game`` (both players), analysed at ``nodes`` a position."""
    verdicts = list(analyze(game, nodes=nodes))
    found = []
    for at, verdict in enumerate(verdicts):
        if verdict.kind != ESTIMATED or verdict.played is None or verdict.best is None:
            continue
        gap = verdict.best - verdict.played
        # With a better move named the drop is real; without one, a positive gap means the
        # search's own move was played and the two estimates disagree (noise).
        own = verdict.better is None and gap > 0
        drop = gap if verdict.better is not None or own else 0.0
        found.append(Sample(drop, own, later_loss(verdicts, at, game), levels[verdict.player]))
    return found


def table(title: str, chosen: list[Sample], total: int) -> None:
    """The drops of ``chosen`` by bucket: count, share of all ``total`` estimates, later losses."""
    print(f"{title} (share of all {total} estimates; followed by a proven loss for the mover)")
    edges = (*EDGES, float("inf"))
    for low, high in pairwise(edges):
        inside = [s for s in chosen if low <= s.drop < high]
        if not inside:
            continue
        lost = sum(s.later_loss for s in inside)
        label = f"{low:g}-{high:g}" if high != float("inf") else f">={low:g}"
        print(f"  {label:>9} cards  {len(inside):4}  {len(inside) / total:6.1%}  {lost / len(inside):6.1%}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=8, help="self-play games to analyse")
    parser.add_argument("--nodes", type=int, default=50_000, help="the analysis' node budget a position")
    parser.add_argument("--hard-nodes", type=int, default=20_000, help="hard's node budget a move")
    args = parser.parse_args()
    start = time.perf_counter()
    found: list[Sample] = []
    moves = 0
    for index in range(args.games):
        game, levels = self_play(index, args.hard_nodes)
        moves += len(game.moves)
        found += samples(game, levels, args.nodes)
        print(f"game {index + 1}: {len(game.moves)} moves, {time.perf_counter() - start:.0f} s", flush=True)
    total = len(found)
    print(
        f"{args.games} games (hard at {args.hard_nodes} nodes vs medium), {moves} moves, "
        f"{total} estimated verdicts at {args.nodes} nodes a position"
    )
    real = [s for s in found if not s.own]
    table("drop, another move found better", [s for s in real if s.drop > 0], total)
    table("gap, the search's own move played (noise)", [s for s in found if s.own], total)
    base = sum(s.later_loss for s in found) / max(1, total)
    print(f"all estimates: {base:.1%} followed by a proven loss for the mover")
    drops = sorted((0.0 if s.own else s.drop for s in found), reverse=True)  # noise is never marked
    for share in (0.05, 0.10, 0.15):
        cut = drops[min(len(drops) - 1, int(share * len(drops)))] if drops else 0.0
        print(f"  the worst {share:.0%} of estimated moves drop at least {cut:.2f} cards")
    for name, low, high in (
        ("doubtful", DOUBTFUL_DROP, MISTAKE_DROP),
        ("estimated mistakes", MISTAKE_DROP, float("inf")),
    ):
        marked = [s for s in real if low <= s.drop < high]
        lost = sum(s.later_loss for s in marked) / max(1, len(marked))
        by_level = {level: sum(s.level == level for s in marked) for level in ("hard", "medium")}
        print(
            f"  {name} ({low:g} <= drop < {high:g} cards): {len(marked)} = {len(marked) / max(1, total):.1%} of estimates, "
            f"{lost:.1%} followed by a proven loss; by hard {by_level['hard']}, by medium {by_level['medium']}"
        )
    print(f"total {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
