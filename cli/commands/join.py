"""``trumps join INVITE``: join a friend's duel with the invite they sent."""

from __future__ import annotations

import argparse

from cli.i18n import N_

HELP = N_("join a friend's duel: trumps join ADDRESS:PORT/FINGERPRINT/SECRET")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``trumps join`` (see :mod:`cli.net.arguments`)."""
    from cli.net.arguments import add_join_arguments

    add_join_arguments(parser)


def run(args: argparse.Namespace) -> int:
    """Join the duel; the exit status (0 when the match was played to its end)."""
    from cli.net.launch import run_command

    return run_command(args, "join")
