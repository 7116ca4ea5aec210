"""The ``trumps`` command line: choose the language, parse arguments, then hand over to one command.

Each command lives in ``cli/commands/<name>.py`` with ``HELP`` (one line,
marked with ``N_`` and translated here), ``add_arguments(parser)`` and
``run(args) -> int``. Those modules import only the standard library at module
level — prompt_toolkit, cryptography and the engine are imported inside ``run``
— so that ``trumps --help`` answers fast.

``--lang`` is a global option that may stand anywhere on the line; it is read
before the parser is built, because the parser's help is already translated.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import sys
from collections.abc import Sequence

from cli import __version__, config, i18n
from cli.i18n import _
from cli.parser import Parser

COMMANDS = ("play", "replay", "analyze", "history", "stats", "host", "join", "verify", "peers")
DEFAULT_COMMAND = "play"


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The argument parser with every command's sub-parser (in the language in use).

    Only ``command``'s sub-parser gets its options (all do when ``None``): a run
    parses one command, and the others' options (the network's among them) would
    only slow every start.
    """
    parser = Parser(
        prog="trumps",
        description=_("Your trumps (Svoi Kozyri): a card duel against the AI or a friend."),
        epilog=_("With no command, 'trumps' starts a game against the AI ('trumps play')."),
    )
    parser.add_argument(
        "--version",
        action="version",
        version=f"trumps {__version__}",
        help=_("show program's version number and exit"),
    )
    parser.add_argument(
        "--lang",
        metavar="LANG",
        help=_("the language: {languages}, or auto (the environment's); remembered").format(
            languages=", ".join(i18n.LANGUAGES)
        ),
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        module = importlib.import_module(f"cli.commands.{name}")
        sub = commands.add_parser(name, help=_(module.HELP), description=_(module.HELP))
        if command in (None, name):
            module.add_arguments(sub)
        sub.set_defaults(command_parser=sub)
    return parser


def take_language_option(args: list[str]) -> tuple[str | None, list[str]]:
    """``--lang X`` or ``--lang=X`` wherever it stands, and the other arguments.

    >>> take_language_option(["play", "--lang", "uk", "--games", "3"])
    ('uk', ['play', '--games', '3'])
    >>> take_language_option(["--lang=kk"])
    ('kk', [])
    """
    rest: list[str] = []
    chosen: str | None = None
    words = iter(args)
    for word in words:
        if word == "--":
            rest += [word, *words]
        elif word == "--lang":
            chosen = next(words, "")
        elif word.startswith("--lang="):
            chosen = word.partition("=")[2]
        else:
            rest.append(word)
    return chosen, rest


def choose_language(option: str | None) -> str | None:
    """Speak the language ``--lang`` names (and remember it), else the remembered one, else the
    environment's; an error message when ``option`` names no language of the game."""
    if option is None:
        remembered = config.load_config().get("lang", "")
        i18n.use(remembered if i18n.language_code(remembered) else None)
        return None
    code = None if option == i18n.AUTO else i18n.language_code(option)
    if code is None and option != i18n.AUTO:
        i18n.use()
        return _("unknown language {name!r}: choose one of {languages}, or auto").format(
            name=option, languages=", ".join(i18n.LANGUAGES)
        )
    i18n.use(code)
    with contextlib.suppress(OSError):
        config.save_config(lang=code or "")
    return None


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``trumps`` with ``argv`` (default: the process arguments); the exit status."""
    option, args_list = take_language_option(list(sys.argv[1:] if argv is None else argv))
    problem = choose_language(option)
    if problem is not None:
        print(f"trumps: {problem}", file=sys.stderr)
        return 2
    if not args_list or (args_list[0].startswith("-") and args_list[0] not in ("-h", "--help", "--version")):
        args_list.insert(0, DEFAULT_COMMAND)
    parser = build_parser(args_list[0])
    args, unknown = parser.parse_known_args(args_list)
    if unknown:  # said with the command's own usage, not the top level's
        args.command_parser.error(_("unrecognized arguments: %s") % " ".join(unknown))
    module = importlib.import_module(f"cli.commands.{args.command}")
    try:
        status = int(module.run(args))
        sys.stdout.flush()  # here, not at exit: a reader gone (trumps history | head) is met below
        return status
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # the reader stopped reading: nothing more to say, and no traceback
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # what is left goes nowhere
        return 141  # as a program stopped by SIGPIPE


if __name__ == "__main__":
    sys.exit(main())
