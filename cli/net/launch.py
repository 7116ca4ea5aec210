"""Which way ``trumps host`` and ``trumps join`` play: headless with ``--bot``, else in the full screen."""

from __future__ import annotations

import argparse

from cli.i18n import _


def run_command(args: argparse.Namespace, command: str) -> int:
    """``trumps host`` or ``trumps join``: headless with ``--bot``, else in the full-screen game."""
    import functools

    from cli.app.duel_screen import play_duel
    from cli.net.hosting import run_host
    from cli.net.joining import run_join
    from cli.options import has_terminal

    runner = run_host if command == "host" else run_join
    if args.bot is not None:
        return runner(args)
    if not has_terminal(command, _("use --bot LEVEL to let the AI play")):
        return 2
    return runner(args, functools.partial(play_duel, trump=args.trump))
