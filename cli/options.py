"""What ``trumps play``, ``trumps host`` and ``trumps join`` share: the options of a match
(``--games``, ``--trump``, ``--pickup``, ``--no-sixes``), one definition, one range and one
parser each, and the check that the game has a terminal.

Only the standard library is imported here (the commands' options are built on every start);
the engine is imported when a suit is actually parsed.

>>> parser = argparse.ArgumentParser()
>>> add_match_options(parser, second_choice=True)
>>> args = parser.parse_args(["--games", "3", "--trump", "♤h", "--no-sixes"])
>>> args.games, args.trump, args.pickup, args.no_sixes
(3, 'SH', None, True)
"""

from __future__ import annotations

import argparse
import re
import sys

from cli.i18n import _

MAX_GAMES = 99
"""The longest match: ``--games`` takes 1 to this (the protocol's :data:`p2p.messages.MAX_GAMES`;
tests/test_cli_options.py ties the two, since importing p2p here would slow every start)."""
ANALYSIS_NODES = 100_000
"""The search's node budget for each position of every analysis that is saved or shown, the
analysis screen's (F6) and ``trumps analyze``'s: one budget, so that both say the same of a game,
and a count of nodes, not seconds, so that every run and every machine says the same (about half of
hard's 0.5 s here; a game of 150 moves in under a minute, docs/ai.md)."""
MOST_NODES = 1_000_000_000
"""``--nodes`` takes at most this (some 30 minutes a position here): more would think for ever."""
PICKUP_CHOICES = ("forced", "voluntary")
"""``--pickup``'s choices: the engine's :data:`engine.rules.PICKUP_CHOICES`, tied by the same test."""


def games_count(text: str) -> int:
    """``--games N``: a match of 1 to :data:`MAX_GAMES` games, in ASCII digits.

    >>> games_count("5")
    5
    """
    if not re.fullmatch("[0-9]{1,2}", text) or not 1 <= int(text) <= MAX_GAMES:
        raise argparse.ArgumentTypeError(
            _("{text!r} is not a number of games from 1 to {most}").format(text=text, most=MAX_GAMES)
        )
    return int(text)


def seconds(text: str) -> float:
    """A time in seconds, more than 0 and at most a day (``--timeout``, ``--seconds``): ``inf``
    or ``1e400`` would wait or think for ever.

    >>> seconds("0.5"), seconds("90")
    (0.5, 90.0)
    """
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value <= 86400:
        raise argparse.ArgumentTypeError(
            _("{text!r} is not a number of seconds (up to 86400)").format(text=text)
        )
    return value


def node_count(text: str) -> int:
    """A node budget (``trumps analyze --nodes``): 1 to :data:`MOST_NODES`, in ASCII digits.

    >>> node_count("200000")
    200000
    """
    if not re.fullmatch("[0-9]{1,10}", text) or not 1 <= int(text) <= MOST_NODES:
        raise argparse.ArgumentTypeError(
            _("{text!r} is not a number of nodes from 1 to {most}").format(text=text, most=MOST_NODES)
        )
    return int(text)


def trump_suits(text: str, most: int = 2) -> str:
    """Trump suits as letters: a suit in any case, as a letter or a symbol (black or white),
    and up to ``most`` different ones (a second choice for when both players want the first).

    >>> trump_suits("♤"), trump_suits("h♦"), trump_suits(" c ")
    ('S', 'HD', 'C')
    """
    from engine.cards import SUITS, parse_suit
    from engine.errors import NotationError

    typed = text.strip()
    try:
        letters = "".join(SUITS[parse_suit(char)] for char in typed)
    except NotationError:
        letters = ""
    if not 1 <= len(letters) <= most or len(set(letters)) != len(letters):
        if most == 1:
            problem = _("{text!r} is not a suit: use S, H, D or C (or ♠ ♥ ♦ ♣)")
        else:
            problem = _("{text!r} is not a suit, or two different ones: use S, H, D or C (or ♠ ♥ ♦ ♣)")
        raise argparse.ArgumentTypeError(problem.format(text=text))
    return letters


def _one_trump(text: str) -> str:
    return trump_suits(text, most=1)


def add_match_options(parser: argparse.ArgumentParser, second_choice: bool = False) -> None:
    """``--games``, ``--trump``, ``--pickup`` and ``--no-sixes``; each is ``None`` (or false)
    when left out, so that a command can tell what was asked for (``play`` starts a new game
    instead of offering the unfinished one). ``second_choice``: ``--trump`` takes two suits."""
    parser.add_argument(
        "--games",
        type=games_count,
        metavar="N",
        help=_("play a match of N games (1-{most})").format(most=MAX_GAMES),
    )
    add_trump_option(parser, second_choice)
    parser.add_argument(
        "--pickup",
        type=str.lower,
        choices=PICKUP_CHOICES,
        help=_("forced (default): take only when you cannot beat; voluntary: take any time"),
    )
    parser.add_argument(
        "--no-sixes", action="store_true", help=_("do not hand over the sixes of the trump suits")
    )


def add_trump_option(parser: argparse.ArgumentParser, second_choice: bool = False) -> None:
    """``--trump`` alone (``trumps join``: the host sets the other rules)."""
    if second_choice:
        parser.add_argument(
            "--trump",
            type=trump_suits,
            metavar="SUITS",
            help=_(
                "your trump suit, S H D or C (or ♠ ♥ ♦ ♣), and optionally a second choice for when "
                "both want the same suit (e.g. SH)"
            ),
        )
    else:
        parser.add_argument(
            "--trump",
            type=_one_trump,
            metavar="SUIT",
            help=_("your trump suit, S H D or C (or ♠ ♥ ♦ ♣); asked when left out"),
        )


def has_terminal(command: str, hint: str = "") -> bool:
    """Whether stdin and stdout are a terminal; if not, say so on stderr (``hint``: what to do instead)."""
    if sys.stdin.isatty() and sys.stdout.isatty():
        return True
    message = _("the game needs a terminal (stdin and stdout must be a tty)")
    print(f"trumps {command}: {message}{'; ' + hint if hint else ''}", file=sys.stderr)
    return False
