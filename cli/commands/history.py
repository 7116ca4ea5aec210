"""``trumps history``: the saved games, with date, opponent and result."""

from __future__ import annotations

import argparse

from cli.i18n import N_, _, ngettext

HELP = N_("list your saved games: date, opponent, result")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``trumps history`` has no options."""


def run(args: argparse.Namespace) -> int:
    """Print the list; the exit status."""
    from cli import storage
    from cli.app.board import pad
    from cli.app.widths import cell_width
    from cli.history import history_rows, match_record_paths
    from cli.printable import printable

    paths = storage.record_paths()
    match_paths = match_record_paths()
    if not paths and not match_paths:
        print(_("No saved games yet (they are kept in {folder}).").format(folder=storage.data_dir()))
        return 0
    widths = (17, 22, 34)
    heading = (_("Date"), _("Opponent"), _("Result"))
    print(" ".join(pad(text, width) for text, width in zip(heading, widths, strict=True)), end=" ")
    moves = _("Moves")
    print(" " * (5 - cell_width(moves)) + f"{moves}  {_('File')}")
    rows = history_rows(paths, match_paths)
    for row in rows:
        cells = [printable(text) for text in (row.date, row.opponent, row.result)]
        print(" ".join(pad(text, width) for text, width in zip(cells, widths, strict=True)), end=" ")
        print(f"{row.moves:>5}  {printable(row.file)}")
    count = len(rows)
    text = ngettext(
        "{count} game in {folder}; replay one with: trumps replay FILE",
        "{count} games in {folder}; replay one with: trumps replay FILE",
        count,
    )
    print("\n" + text.format(count=count, folder=storage.data_dir()))
    return 0
