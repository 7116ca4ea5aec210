"""``trumps replay FILE``: step through a saved game with the arrow keys."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from cli.commands.play import add_display_arguments, chosen_theme
from cli.i18n import N_, _

if TYPE_CHECKING:
    from engine import Game
    from engine.ai.analysis import Verdict

HELP = N_("step through a saved game record with the arrow keys")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``trumps replay``."""
    parser.add_argument(
        "file",
        metavar="FILE",
        nargs="?",
        help=_("a game: its number in 'trumps history', or its record (a path, or a name it lists)")
        + " "
        + _("or game N of a network match record: FILE#N")
        + "; "
        + _("without it, the last game played"),
    )
    add_display_arguments(parser)


def run(args: argparse.Namespace) -> int:
    """Show the record; the exit status (1 when it cannot be read)."""
    from cli import storage
    from cli.app.replay import Replay, replay_application
    from cli.history import game_spec, load_game
    from cli.i18n import translated
    from cli.printable import printable
    from cli.record_words import record_reason
    from engine import RecordError
    from p2p import errors as p2p_errors

    if args.file is None:
        records = storage.record_paths()
        if not records:
            message = _("no saved game yet (they are kept in {folder})").format(folder=storage.games_dir())
            print(f"trumps replay: {message}", file=sys.stderr)
            return 1
        args.file = records[-1].name
    try:
        args.file = game_spec(args.file)
        game = load_game(args.file)
    except storage.StorageError as exc:  # it names the file
        print(printable(f"trumps replay: {exc}"), file=sys.stderr)
        return 1
    except (RecordError, p2p_errors.MatchRecordError) as exc:
        reason = record_reason(exc) if isinstance(exc, RecordError) else translated(exc)
        message = _("{file} cannot be replayed: {error}").format(file=args.file, error=reason)
        print(printable(f"trumps replay: {message}"), file=sys.stderr)  # the error may quote the file
        return 1
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        message = _("the viewer needs a terminal (stdin and stdout must be a tty)")
        print(f"trumps replay: {message}", file=sys.stderr)
        return 2
    verdicts, note = _analysis(args.file, game)
    replay = Replay(game, args.file, args.ascii, verdicts, note)
    replay_application(replay, args.four_color, chosen_theme(args)).run()
    return 0


def _analysis(spec: str, game: Game) -> tuple[dict[int, Verdict], str]:
    """The coach's saved verdicts on the game, and what to say of them at the deal."""
    from cli import storage
    from cli.analysis_file import analysis_path, load_analysis
    from cli.coach_words import marks_words

    try:
        verdicts = load_analysis(analysis_path(spec), game)
    except storage.StorageError as exc:
        return {}, _("The coach's analysis cannot be shown: {error}").format(error=exc)
    if not verdicts:
        return {}, ""
    text = _("With the coach's analysis: {marks}; marked in the moves (? and ?? proven, (?) and ?! estimated).")
    return verdicts, text.format(marks=marks_words(verdicts.values()))
