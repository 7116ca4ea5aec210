"""``trumps replay FILE``: step through a saved game with the arrow keys."""

from __future__ import annotations

import argparse
import sys

from cli.commands.play import add_display_arguments
from cli.i18n import N_, _

HELP = N_("step through a saved game record with the arrow keys")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``trumps replay``."""
    parser.add_argument(
        "file", metavar="FILE", help=_("a game record (a path, or a name 'trumps history' lists)")
    )
    add_display_arguments(parser)


def run(args: argparse.Namespace) -> int:
    """Show the record; the exit status (1 when it cannot be read)."""
    from pathlib import Path

    from cli import storage
    from cli.app.replay import Replay, replay_application
    from engine import Game, RecordError

    path = Path(args.file)
    if not path.exists() and (storage.games_dir() / args.file).exists():
        path = storage.games_dir() / args.file
    try:
        game = Game.from_record(storage.read_text(path))
    except (storage.StorageError, RecordError) as exc:
        message = _("{file} cannot be replayed: {error}").format(file=path, error=exc)
        print(f"trumps replay: {message}", file=sys.stderr)
        return 1
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        message = _("the viewer needs a terminal (stdin and stdout must be a tty)")
        print(f"trumps replay: {message}", file=sys.stderr)
        return 2
    replay_application(Replay(game, path.name, args.ascii), args.four_color).run()
    return 0
