"""``trumps join INVITE``: join a friend's duel with the invite they sent."""

from __future__ import annotations

import argparse

from cli.commands.duel import add_duel_arguments, run_duel
from cli.i18n import N_

HELP = N_("join a friend's duel: trumps join HOST:PORT/FINGERPRINT")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``trumps join`` (see :mod:`p2p.commands`)."""
    add_duel_arguments(parser, "join")


def run(args: argparse.Namespace) -> int:
    """Join the duel; the exit status (0 when the match was played to its end)."""
    return run_duel(args, "join")
