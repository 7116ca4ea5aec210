"""Engine speed through the public API: random-playout plies/s and move generations/s.

Run: ``python benchmarks/engine.py [--seconds S]``. One ply is what a random
player does: list every legal move, pick one at random, play it.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

# Run as a script, this folder heads sys.path and this file would shadow the engine package.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]

from engine import Position, deal  # noqa: E402


def playout_plies(seconds: float, rng: random.Random) -> tuple[int, float]:
    """Random playouts from fresh deals until ``seconds`` pass: (plies, elapsed)."""
    plies = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        position = deal(rng.randbytes(32), rng.randrange(2), "SH")
        for _ in range(position.rules.max_moves):
            moves = position.legal_moves()
            if not moves:
                break
            position = position.play(rng.choice(moves))
            plies += 1
    return plies, time.perf_counter() - start


def sample_positions(count: int, rng: random.Random) -> list[Position]:
    """Positions met in random play, for timing move generation alone."""
    positions: list[Position] = []
    while len(positions) < count:
        position = deal(rng.randbytes(32), rng.randrange(2), "DC")
        while position.outcome() is None and len(positions) < count:
            positions.append(position)
            position = position.play(rng.choice(position.legal_moves()))
    return positions


def generations(positions: list[Position], seconds: float) -> tuple[int, float]:
    done = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for position in positions:
            position.legal_moves()
        done += len(positions)
    return done, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=3.0, help="time for each measurement")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    plies, elapsed = playout_plies(args.seconds, rng)
    print(f"random playout: {plies / elapsed:,.0f} plies/s ({plies:,} plies in {elapsed:.2f} s)")
    done, elapsed = generations(sample_positions(5000, rng), args.seconds)
    print(f"legal-move generation: {done / elapsed:,.0f} positions/s")


if __name__ == "__main__":
    main()
