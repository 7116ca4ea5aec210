"""``trumps host``: offer a duel over the network and print the invite for a friend."""

from __future__ import annotations

import argparse
import sys

HELP = "host a duel with a friend over the network (prints the 'trumps join' line to send them)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``trumps host`` (see :mod:`p2p.commands`)."""
    from p2p.commands import add_host_arguments

    add_host_arguments(parser)


def run(args: argparse.Namespace) -> int:
    """Host the duel; the exit status (0 when the match was played to its end)."""
    from p2p.commands import run_host

    if args.bot is not None:
        return run_host(args)
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        print("trumps host: the game needs a terminal; use --bot LEVEL to let the AI play", file=sys.stderr)
        return 2
    import functools

    from cli.app.network_opponent import play_duel
    from engine.cards import SUITS, parse_suit

    try:
        trump = SUITS[parse_suit(args.trump[0])] if args.trump else None
    except ValueError:
        print(f"trumps host: {args.trump!r} is not a suit: use S, H, D or C", file=sys.stderr)
        return 2
    return run_host(args, functools.partial(play_duel, trump=trump))
