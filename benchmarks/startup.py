"""How fast ``trumps --help`` answers, against a bare ``python -c pass`` (the target: at most 6x).

Run: ``python benchmarks/startup.py [--runs N]``; prints the median of each and the ratio.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

TRUMPS = Path(sys.executable).with_name("trumps")


def median_seconds(command: list[str], runs: int) -> float:
    """The median wall time of ``runs`` runs of ``command``."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, stdout=subprocess.DEVNULL, check=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    bare = median_seconds([sys.executable, "-c", "pass"], args.runs)
    print(f"python -c pass: {bare * 1000:.1f} ms")
    for extra in (["--help"], ["--version"], ["play", "--help"]):
        took = median_seconds([str(TRUMPS), *extra], args.runs)
        print(f"trumps {' '.join(extra)}: {took * 1000:.1f} ms ({took / bare:.1f}x)")


if __name__ == "__main__":
    main()
