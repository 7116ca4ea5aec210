"""``trumps history``: the saved games, with date, opponent and result."""

from __future__ import annotations

import argparse

HELP = "list your saved games: date, opponent, result"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``trumps history`` has no options."""


def run(args: argparse.Namespace) -> int:
    """Print the list; the exit status."""
    from cli import storage
    from cli.history import history_rows

    paths = storage.record_paths()
    if not paths:
        print(f"No saved games yet (they are kept in {storage.games_dir()}).")
        return 0
    print(f"{'Date':<17} {'Opponent':<22} {'Result':<34} {'Moves':>5}  File")
    for row in history_rows(paths):
        print(f"{row.date:<17} {row.opponent:<22} {row.result:<34} {row.moves:>5}  {row.file}")
    print(f"\n{len(paths)} game(s) in {storage.games_dir()}; replay one with: trumps replay FILE")
    return 0
