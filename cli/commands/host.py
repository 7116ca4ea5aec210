"""``trumps host``: offer a duel over the network and print the invite for a friend."""

from __future__ import annotations

import argparse

from cli.i18n import N_

HELP = N_("host a duel with a friend over the network (prints the 'trumps join' line to send them)")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``trumps host`` (see :mod:`cli.net.arguments`)."""
    from cli.net.arguments import add_host_arguments

    add_host_arguments(parser)


def run(args: argparse.Namespace) -> int:
    """Host the duel (or only ``--check`` how it could be reached); the exit status (0 when the
    match was played to its end)."""
    from cli.net.hosting import run_check
    from cli.net.launch import run_command

    return run_check(args) if args.check else run_command(args, "host")
