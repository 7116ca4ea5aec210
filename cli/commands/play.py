"""``trumps play``: a full-screen game against the AI."""

from __future__ import annotations

import argparse
import re
import sys

from cli.i18n import N_, _

HELP = N_("play against the AI in a full-screen game (the default command)")
_SUITS = {"s": "S", "h": "H", "d": "D", "c": "C", "♠": "S", "♥": "H", "♦": "D", "♣": "C"}


def _suit(text: str) -> str:
    try:
        return _SUITS[text.strip().lower()]
    except KeyError:
        raise argparse.ArgumentTypeError(
            _("{text!r} is not a suit: use S, H, D or C").format(text=text)
        ) from None


def _games(text: str) -> int:
    if not re.fullmatch("[0-9]{1,3}", text) or not 1 <= int(text) <= 999:
        raise argparse.ArgumentTypeError(
            _("{text!r} is not a number of games from 1 to 999").format(text=text)
        )
    return int(text)


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
        "--level", default="hard", help=_("the AI's strength: easy, medium, hard (default) or a stronger one")
    )
    parser.add_argument(
        "--seed", type=_seed, metavar="HEX", help=_("deal from this seed (a reproducible game)")
    )
    parser.add_argument("--games", type=_games, default=1, metavar="N", help=_("play a match of N games"))
    parser.add_argument(
        "--trump", type=_suit, metavar="SUIT", help=_("your trump suit, S H D or C (asked when left out)")
    )
    parser.add_argument(
        "--pickup",
        choices=("forced", "voluntary"),
        default="forced",
        help=_("forced (default): take only when you cannot beat; voluntary: take any time"),
    )
    parser.add_argument(
        "--no-sixes", action="store_true", help=_("do not hand over the sixes of the trump suits")
    )
    add_display_arguments(parser)
    parser.add_argument("--resume", action="store_true", help=_("continue the unfinished game at once"))


def add_display_arguments(parser: argparse.ArgumentParser) -> None:
    """``--ascii`` and ``--four-color``, shared by ``play`` and ``replay``."""
    parser.add_argument(
        "--ascii", action="store_true", help=_("write suits as letters (S H D C), not ♠ ♥ ♦ ♣")
    )
    parser.add_argument(
        "--four-color", action="store_true", help=_("four suit colours instead of red and black")
    )


def run(args: argparse.Namespace) -> int:
    """Start the game; the exit status."""
    import asyncio

    from cli import config
    from cli.app.ai_opponent import AIOpponent
    from cli.app.application import play
    from cli.app.match import Match
    from cli.app.resume import load_unfinished
    from cli.app.session import Display, Session
    from engine import Rules
    from engine.ai import LEVELS

    if args.level not in LEVELS:
        message = _("unknown level {level!r}: choose one of {levels}").format(
            level=args.level, levels=", ".join(LEVELS)
        )
        print(f"trumps play: {message}", file=sys.stderr)
        return 2
    unfinished, notice = load_unfinished()
    if args.resume and unfinished is None:
        print(f"trumps play: {_('no unfinished game to resume.')} {notice}".strip(), file=sys.stderr)
        return 1
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        message = _("the game needs a terminal (stdin and stdout must be a tty)")
        print(f"trumps play: {message}", file=sys.stderr)
        return 2
    remembered = config.load_config()
    session = Session(
        AIOpponent(args.level, args.seed),
        Match(args.games),
        rules=Rules(pickup=args.pickup, sixes=not args.no_sixes),
        trump=args.trump,
        last_trump=remembered.get("trump"),
        resume=unfinished if args.resume else None,
        offer=None if args.resume else unfinished,
        display=Display(args.ascii, args.four_color),
        show_opponent=remembered.get("show_opponent") != "no",
        message=notice,
        error=bool(notice),
    )
    asyncio.run(play(session))
    return 0
