"""``trumps history``: the saved games, with date, opponent and result, as wide as the terminal."""

from __future__ import annotations

import argparse

from cli.i18n import N_, _, ngettext

HELP = N_("list your saved games: date, opponent, result")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``trumps history`` has no options."""


def run(args: argparse.Namespace) -> int:
    """Print the list; the exit status."""
    import shutil

    from cli import storage
    from cli.history import history_rows, match_record_paths, table_lines

    paths = storage.record_paths()
    match_paths = match_record_paths()
    if not paths and not match_paths:
        print(_("No saved games yet (they are kept in {folder}).").format(folder=storage.data_dir()))
        return 0
    rows = history_rows(paths, match_paths)
    for line in table_lines(rows, shutil.get_terminal_size().columns):
        print(line)
    text = ngettext(
        "{count} game in {folder}; replay one with: trumps replay FILE",
        "{count} games in {folder}; replay one with: trumps replay FILE",
        len(rows),
    )
    print("\n" + text.format(count=len(rows), folder=storage.data_dir()))
    return 0
