"""What ``trumps host`` and ``trumps join`` share: options from :mod:`p2p.commands`, play from the interface."""

from __future__ import annotations

import argparse


def add_duel_arguments(parser: argparse.ArgumentParser, role: str) -> None:
    """The options of ``trumps host`` (``role`` "host") or ``trumps join`` ("join")."""
    from cli.i18n import translated
    from cli.printable import printable
    from p2p import commands

    # p2p never translates: the interface shows its text (p2p.text), peers' words in it made harmless
    commands.translate = lambda message: printable(translated(message))
    if role == "host":
        commands.add_host_arguments(parser)
    else:
        commands.add_join_arguments(parser)


def run_duel(args: argparse.Namespace, role: str) -> int:
    """Play the duel as ``role``; the exit status (0 when the match was played to its end)."""
    from cli.app.network_opponent import run_command

    return run_command(args, role)
