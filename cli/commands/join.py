"""``trumps join INVITE``: join a friend's duel with the invite they sent."""

from __future__ import annotations

import argparse
import sys

HELP = "join a friend's duel: trumps join HOST:PORT/FINGERPRINT"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``trumps join`` (see :mod:`p2p.commands`)."""
    from p2p.commands import add_join_arguments

    add_join_arguments(parser)


def run(args: argparse.Namespace) -> int:
    """Join the duel; the exit status (0 when the match was played to its end)."""
    from p2p.commands import run_join

    if args.bot is not None:
        return run_join(args)
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        print("trumps join: the game needs a terminal; use --bot LEVEL to let the AI play", file=sys.stderr)
        return 2
    import functools

    from cli.app.network_opponent import play_duel
    from engine.cards import SUITS, parse_suit

    try:
        trump = SUITS[parse_suit(args.trump[0])] if args.trump else None
    except ValueError:
        print(f"trumps join: {args.trump!r} is not a suit: use S, H, D or C", file=sys.stderr)
        return 2
    return run_join(args, functools.partial(play_duel, trump=trump))
