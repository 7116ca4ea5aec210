"""The ``trumps`` command line: parse arguments, then hand over to one command.

Each command lives in ``cli/commands/<name>.py`` with ``HELP`` (one line),
``add_arguments(parser)`` and ``run(args) -> int``. Those modules import only
the standard library at module level — prompt_toolkit, cryptography and the
engine are imported inside ``run`` — so that ``trumps --help`` answers fast.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import sys
from collections.abc import Sequence

from cli import __version__

COMMANDS = ("play", "replay", "history", "host", "join", "verify", "peers")
DEFAULT_COMMAND = "play"


def available_commands() -> tuple[str, ...]:
    """The commands of :data:`COMMANDS` whose module is installed.

    A command under construction (its module not written yet) is left out of
    the parser rather than breaking every other command.
    """
    return tuple(name for name in COMMANDS if importlib.util.find_spec(f"cli.commands.{name}") is not None)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every command's sub-parser."""
    parser = argparse.ArgumentParser(
        prog="trumps",
        description="Your trumps (Svoi Kozyri): a card duel against the AI or a friend.",
        epilog="With no command, 'trumps' starts a game against the AI ('trumps play').",
    )
    parser.add_argument("--version", action="version", version=f"trumps {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in available_commands():
        module = importlib.import_module(f"cli.commands.{name}")
        sub = commands.add_parser(name, help=module.HELP, description=module.HELP)
        module.add_arguments(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``trumps`` with ``argv`` (default: the process arguments); the exit status."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    if not args_list or (args_list[0].startswith("-") and args_list[0] not in ("-h", "--help", "--version")):
        args_list.insert(0, DEFAULT_COMMAND)
    args = parser.parse_args(args_list)
    module = importlib.import_module(f"cli.commands.{args.command}")
    try:
        return int(module.run(args))
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
