"""``trumps play``: a full-screen game against the AI."""

from __future__ import annotations

import argparse
import sys

from cli.i18n import N_, _
from cli.options import add_match_options, has_terminal

HELP = N_("play against the AI in a full-screen game (the default command)")


def _seed(text: str) -> bytes:
    try:
        seed = bytes.fromhex(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            _("{text!r} is not hexadecimal (like 00ff17)").format(text=text)
        ) from None
    if not seed:
        raise argparse.ArgumentTypeError(_("the seed is empty: give at least one byte in hex"))
    return seed


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``trumps play``."""
    parser.add_argument(
        "--level", type=str.lower, help=_("the AI's strength: easy, medium, hard (default) or expert")
    )
    parser.add_argument(
        "--seed", type=_seed, metavar="HEX", help=_("deal from this seed (a reproducible game)")
    )
    add_match_options(parser)
    add_display_arguments(parser)
    parser.add_argument("--resume", action="store_true", help=_("continue the unfinished game at once"))


THEMES = ("standard", "high-contrast")
"""The names of ``cli.app.style.THEMES`` (listed here so that ``--help`` imports no prompt_toolkit)."""


def add_display_arguments(parser: argparse.ArgumentParser) -> None:
    """``--ascii``, ``--four-color`` and ``--theme``, shared by ``play`` and ``replay``."""
    parser.add_argument(
        "--theme",
        type=str.lower,
        choices=THEMES,
        help=_(
            "card colours: standard, or high-contrast (black chips for cards you cannot play); remembered"
        ),
    )
    parser.add_argument(
        "--ascii", action="store_true", help=_("write suits as letters (S H D C), not ♠ ♥ ♦ ♣")
    )
    parser.add_argument(
        "--four-color", action="store_true", help=_("four suit colours instead of red and black")
    )


NEW_GAME_OPTIONS = ("level", "seed", "games", "trump", "pickup", "no_sixes")
"""The options that describe a new game: given any of them, ``play`` starts one at once
instead of offering the unfinished game."""


def chosen_theme(args: argparse.Namespace) -> str:
    """The colour theme ``--theme`` names (and remember it), else the remembered one."""
    import contextlib

    from cli import config

    if args.theme is not None:
        with contextlib.suppress(OSError):
            config.save_config(theme=args.theme)
        return str(args.theme)
    remembered = config.load_config().get("theme", "")
    return remembered if remembered in THEMES else THEMES[0]


def run(args: argparse.Namespace) -> int:
    """Start the game; the exit status."""
    import asyncio

    from cli import config, storage
    from cli.app.ai_opponent import AIOpponent
    from cli.app.application import play
    from cli.app.farewell import farewell
    from cli.app.resume import load_unfinished
    from cli.app.saving import Saver
    from cli.app.score import MatchScore
    from cli.app.screen import Display, GameScreen
    from engine import Rules
    from engine.ai import LEVELS

    level = args.level or "hard"
    if level not in LEVELS:
        message = _("unknown level {level!r}: choose one of {levels}").format(
            level=level, levels=", ".join(LEVELS)
        )
        print(f"trumps play: {message}", file=sys.stderr)
        return 2
    lock = storage.lock_unfinished()
    unfinished, problem = load_unfinished() if lock is not None else (None, "")
    notice = ""
    if args.resume and lock is None:
        print(f"trumps play: {_('your unfinished game is open in another trumps window.')}", file=sys.stderr)
        return 1
    if args.resume and unfinished is None:
        if problem:
            message = _(
                "your unfinished game cannot be resumed, because it could not be read ({error}); "
                "'trumps play' starts a new game."
            ).format(error=problem)
        else:
            message = _("there is no unfinished game to resume; 'trumps play' starts a new game.")
        print(f"trumps play: {message}", file=sys.stderr)
        return 1
    if not has_terminal("play"):
        return 2
    new_game = any(getattr(args, name) for name in NEW_GAME_OPTIONS)
    if lock is None:
        notice = _(
            "Another trumps window has your unfinished game: this one is saved in your history, but cannot be resumed."
        )
    elif problem:
        notice = _(
            "Your unfinished game could not be read ({error}); it stays in your history, and a new game starts."
        ).format(error=problem)
    elif unfinished is not None and new_game and not args.resume:
        notice = _(
            "A new game, as your options ask; the unfinished one stays in your history ({file})."
        ).format(file=unfinished.path.name)
        unfinished = None
    remembered = config.load_config()
    screen = GameScreen(
        AIOpponent(level, args.seed),
        MatchScore(args.games or 1),
        rules=Rules(pickup=args.pickup or "forced", sixes=not args.no_sixes),
        trump=args.trump,
        last_trump=remembered.get("trump"),
        resume=unfinished if args.resume else None,
        offer=None if args.resume else unfinished,
        display=Display(args.ascii, args.four_color, chosen_theme(args)),
        show_opponent=remembered.get("show_opponent") != "no",
        saver=Saver(keeps_unfinished=lock is not None),
        notice=notice,
    )
    try:
        asyncio.run(play(screen))
    except EOFError:  # the terminal is gone (a closed window): the game is saved, nobody reads a farewell
        return 1
    from cli.printable import printable

    for line in farewell(screen.flow, screen.saver):  # the score and where the games are: never a silent exit
        print(printable(line))
    return 0
