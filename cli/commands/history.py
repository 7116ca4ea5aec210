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
    from cli.cells import wrap
    from cli.history import history_rows, match_record_paths, table_lines

    paths = storage.record_paths()
    match_paths = match_record_paths()
    if not paths and not match_paths:
        print(_("No saved games yet (they are kept in {folder}).").format(folder=storage.data_dir()))
        return 0
    rows = history_rows(paths, match_paths)
    width = shutil.get_terminal_size().columns
    for line in table_lines(rows, width):
        print(line)

    def say(sentence: str) -> None:
        # Broken between words: the terminal itself would break "trumps analyze NUMB" / "ER".
        print("\n".join(wrap(sentence, width)))

    games = [row for row in rows if row.readable]
    said = ngettext("{count} game in {folder}.", "{count} games in {folder}.", len(games))
    print()
    say(said.format(count=len(games), folder=storage.data_dir()))
    if len(games) < len(rows):
        unreadable = len(rows) - len(games)
        damaged = ngettext(
            "{count} unreadable file, listed above, is not counted.",
            "{count} unreadable files, listed above, are not counted.",
            unreadable,
        )
        say(damaged.format(count=unreadable))
    if games:
        say(_("Replay one with: trumps replay NUMBER; the coach's verdicts: trumps analyze NUMBER."))
    for row in games:
        if row.resumable:
            say(_("Game {number} is unfinished: 'trumps play' continues it.").format(number=row.number))
    return 0
