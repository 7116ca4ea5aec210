"""``trumps analyze RECORD[#GAME]``: the coach's verdict on every move of a saved game."""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING

from cli.i18n import N_, _
from cli.options import ANALYSIS_NODES, node_count

if TYPE_CHECKING:
    from engine import Game
    from engine.ai.analysis import Verdict

HELP = N_("analyze a saved game: which moves kept the win or the draw, which lost it, and the better move")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``trumps analyze``."""
    parser.add_argument(
        "file",
        metavar="RECORD",
        help=_("a game: its number in 'trumps history', or its record (a path, or a name it lists)")
        + " "
        + _("or game N of a network match record: FILE#N"),
    )
    parser.add_argument(
        "--player", type=int, choices=(0, 1), help=_("only the moves of player 0 or 1 (default: both)")
    )
    parser.add_argument(
        "--nodes",
        type=node_count,
        default=ANALYSIS_NODES,
        help=_(
            "the search's work for each position, in nodes (default: {nodes}, as the analysis after "
            "a game); the same number gives the same verdicts on every run"
        ).format(nodes=ANALYSIS_NODES),
    )
    parser.add_argument(
        "--json", action="store_true", help=_("print JSON for other programs instead of text")
    )
    parser.add_argument(
        "--no-save",
        dest="save",
        action="store_false",
        help=_("do not keep the analysis beside the record (by default 'trumps replay' shows it)"),
    )


def run(args: argparse.Namespace) -> int:
    """Print the verdicts; the exit status (1 when the record cannot be read, 130 when interrupted)."""
    from cli.analysis_file import analysis_json
    from cli.search_pool import search_pool
    from engine.ai.analysis import analyze

    found = _load(args.file)
    if found is None:
        return 1
    args.file, game = found  # a number from trumps history names its record from here on
    players = (0, 1) if args.player is None else (args.player,)
    total = sum(1 for position in game.positions[:-1] if position.turn in players)
    names = _player_names(game)
    verdicts: list[Verdict] = []
    progress = sys.stderr.isatty()  # a progress line only for a person watching

    def show_progress() -> None:
        if progress:
            line = _("analyzing: {done} of {total} moves done").format(done=len(verdicts), total=total)
            print(f"\r{line}\033[K", end="", file=sys.stderr, flush=True)

    def clear_progress() -> None:
        if progress:
            print("\r\033[K", end="", file=sys.stderr, flush=True)

    show_progress()
    try:
        with search_pool() as searches:
            for verdict in analyze(game, players, nodes=args.nodes, map_searches=searches):
                verdicts.append(verdict)
                if not args.json:
                    clear_progress()
                    print(_verdict_line(verdict, names), flush=True)
                show_progress()
    except BrokenPipeError:  # the reader went away (``| head``): nothing more to say
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except KeyboardInterrupt:
        clear_progress()
        if args.json:
            print(analysis_json(args.file, verdicts, complete=False))
        message = _("interrupted after {done} of {total} moves").format(done=len(verdicts), total=total)
        print(f"trumps analyze: {message}", file=sys.stderr)
        return 130
    clear_progress()
    if args.json:
        print(analysis_json(args.file, verdicts, complete=True))
    else:
        from cli.app.cards import move_text
        from cli.coach_words import marks_words, turning_words

        print(marks_words(verdicts))
        for player in players:
            turning = turning_words((v for v in verdicts if v.player == player), move_text)
            if turning is not None:
                print(f"{names[player]}: {turning}")
    if args.save:
        _save(args.file, verdicts, quiet=args.json)
    return 0


def _load(spec: str) -> tuple[str, Game] | None:
    """The record ``spec`` names (a number of ``trumps history`` too: :func:`cli.history.game_spec`)
    and its game (see :func:`cli.history.load_game`), or ``None`` after printing why it cannot be
    read."""
    from cli import storage
    from cli.history import game_spec, load_game
    from cli.i18n import translated
    from cli.printable import printable
    from cli.record_words import record_reason
    from engine import RecordError
    from p2p import errors as p2p_errors

    try:
        spec = game_spec(spec)
        return spec, load_game(spec)
    except storage.StorageError as exc:  # it names the file
        print(printable(f"trumps analyze: {exc}"), file=sys.stderr)
        return None
    except (RecordError, p2p_errors.MatchRecordError) as exc:
        reason = record_reason(exc) if isinstance(exc, RecordError) else translated(exc)
        message = _("{file} cannot be analyzed: {error}").format(file=spec, error=reason)
        print(printable(f"trumps analyze: {message}"), file=sys.stderr)  # the error may quote the file
        return None


def _player_names(game: Game) -> tuple[str, str]:
    """The players as the screen names them (``You`` and the AI translated, a friend made harmless)."""
    from cli.app.names import shown_name

    names = game.headers.get("Players", "").split(" vs ")
    if len(names) == 2:
        return shown_name(names[0]), shown_name(names[1])
    return _("player {number}").format(number=0), _("player {number}").format(number=1)


def _verdict_line(verdict: Verdict, names: tuple[str, str]) -> str:
    """One line of the text output: ``12. Ann: KS,6H — kept the win (proven)``."""
    from cli.app.cards import move_text
    from cli.coach_words import verdict_words

    move = move_text(verdict.move)  # as the screen writes it: 10♥ 8♠, not TH,8S
    return f"{verdict.index + 1}. {names[verdict.player]}: {move} — {verdict_words(verdict, move_text)}"


def _save(spec: str, verdicts: list[Verdict], quiet: bool) -> None:
    """Keep the analysis beside the record for ``trumps replay``; say where (unless ``quiet``: the
    output is JSON), or why not."""
    from cli.analysis_file import save_analysis

    try:
        path = save_analysis(spec, verdicts)
    except OSError as exc:
        message = _("the analysis could not be saved: {error}").format(error=exc)
        print(f"trumps analyze: {message}", file=sys.stderr)
        return
    if not quiet:
        from cli.printable import printable

        print(printable(_("The analysis is saved as {file}: 'trumps replay' shows it.").format(file=path)))
