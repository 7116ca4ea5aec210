"""The options of ``trumps host`` and ``trumps join``."""

from __future__ import annotations

import argparse
import re

from cli.i18n import N_, _, translated
from cli.options import add_match_options, add_trump_option, seconds
from p2p.messages import FORFEIT_MS
from p2p.text import Text

DEFAULT_PORT = 47111
BOT_TIMEOUT = FORFEIT_MS / 1000
"""Seconds a peer may be away or owe its move before a bot claims the game (``--timeout``): the
default limit a side states in the handshake."""


def stated_limit_ms(args: argparse.Namespace) -> int:
    """The forfeit limit this side states in the handshake (``--timeout``, milliseconds): the
    match then judges by the longer of the two sides' (:attr:`p2p.handshake.Session.forfeit_limit`)."""
    return max(1, round((args.timeout or BOT_TIMEOUT) * 1000))


def _port(text: str) -> int:
    if not re.fullmatch("[0-9]{1,5}", text) or not 0 <= int(text) <= 65535:
        raise argparse.ArgumentTypeError(
            translated(Text(N_("{text!r} is not a port number (0-65535; 0 picks a free one)"), text=text))
        )
    return int(text)


def add_common_arguments(parser: argparse.ArgumentParser) -> None:
    """Options both sides of a duel take."""
    parser.add_argument(
        "--name",
        help=_(
            "the name your peer sees and remembers you by (default: the name you gave once, "
            "asked on the first duel)"
        ),
    )
    parser.add_argument(
        "--bot",
        metavar="LEVEL",
        help=_("let the AI play at LEVEL (easy, medium, hard…): no interface"),
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help=_("print one JSON line with results, score, transcript and record"),
    )
    parser.add_argument(
        "--timeout",
        type=seconds,
        metavar="SECONDS",
        help=translated(
            Text(
                N_(
                    "when the peer is silent, unreachable or owes its move this long, you may claim "
                    "the game by forfeit (bots claim at once; in the game you are asked); the joiner "
                    "redials meanwhile (default {seconds:g})"
                ),
                seconds=BOT_TIMEOUT,
            )
        ),
    )


def add_host_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``trumps host``."""
    parser.add_argument(
        "--port",
        type=_port,
        default=DEFAULT_PORT,
        help=translated(Text(N_("TCP port to listen on (default {port})"), port=DEFAULT_PORT)),
    )
    parser.add_argument(
        "--bind",
        metavar="ADDR",
        help=_("listen on this address only (default: every IPv4 and IPv6 address)"),
    )
    parser.add_argument(
        "--advertise",
        metavar="HOST",
        help=_("the address or name to put in the invite (e.g. your public address when forwarding a port)"),
    )
    parser.add_argument(
        "--no-map",
        action="store_true",
        help=_("do not ask the home router to open the port (UPnP, NAT-PMP, PCP)"),
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help=_(
            "only find out whether friends elsewhere could join a game hosted here: does your router "
            "open the port (UPnP, NAT-PMP, PCP; it is closed again at once), and your addresses"
        ),
    )
    add_match_options(parser, second_choice=True)
    parser.add_argument(
        "--no-announce",
        action="store_true",
        help=_("do not announce the game on the local network (trumps join without an invite lists it)"),
    )
    parser.add_argument(
        "--hints",
        action="store_true",
        help=_("allow both players the AI's hint (F2); each use is shown to the other and recorded"),
    )
    add_common_arguments(parser)


def add_join_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``trumps join``."""
    parser.add_argument(
        "invite",
        nargs="?",
        help=_(
            "the invite the host gave you: ADDRESS:PORT/FINGERPRINT/SECRET; '-' reads it from "
            "standard input (asked for on a terminal), out of sight of other users' process lists "
            "(left out: choose a game on your network; its host is asked to let you in)"
        ),
    )
    parser.add_argument("--yes", action="store_true", help=_("accept the host's rules without asking"))
    add_trump_option(parser, second_choice=True)
    add_common_arguments(parser)
