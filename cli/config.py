"""Remembered choices: ``<config dir>/config.json`` (last trump suit, language, colour theme, hand
shown or hidden, the player's name).

Every start of ``trumps`` reads it (the language), so this module imports little:
``trumps --help`` must answer fast.
"""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Callable
from pathlib import Path

from cli.home import Home
from p2p.files import write_atomically

_CONFIG = "config.json"


def config_dir() -> Path:
    """The user config directory (remembered choices)."""
    return Home.default().config


def load_config() -> dict[str, str]:
    """The remembered choices; an unreadable file counts as none (it is rewritten on the next save)."""
    path = config_dir() / _CONFIG
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):  # RecursionError: nested deeper than the parser's stack
        return {}
    if not isinstance(raw, dict):
        return {}
    return {str(k): v for k, v in raw.items() if isinstance(v, str)}


def save_config(**changes: str) -> None:
    """Remember some choices, keeping the others."""
    text = json.dumps(load_config() | changes, indent=1) + "\n"
    write_atomically(config_dir() / _CONFIG, text.encode("utf-8"))


NAME_LENGTH = 20
"""The longest player name, in characters."""


def valid_name(text: str) -> str | None:
    """``text`` as a player's name (trimmed), or ``None`` when it cannot be one: empty, longer
    than :data:`NAME_LENGTH`, or holding control characters (see :func:`name_problem`).

    >>> valid_name("  Ann "), valid_name(""), valid_name("a\\x1b[2J")
    ('Ann', None, None)
    """
    return None if name_problem(text) else " ".join(text.split())


def name_problem(text: str) -> str | None:
    """Why ``text`` cannot be a player's name, in words; ``None`` when it can."""
    from cli.i18n import _

    name = " ".join(text.split())
    if not name:
        return _("A name is needed to play a friend: type one, then Enter.")
    if len(name) > NAME_LENGTH:
        return _("That name is too long: at most {count} characters.").format(count=NAME_LENGTH)
    if not name.isprintable():
        return _("A name cannot hold control characters.")
    return None


def _to_stderr(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def ask_on_terminal() -> str:
    """Ask for the player's name on the terminal, before any full screen opens."""
    from cli.i18n import _

    return input(
        _("Your name, as friends will see it (up to {count} characters): ").format(count=NAME_LENGTH)
    )


def player_name(ask: Callable[[], str] = ask_on_terminal, refused: Callable[[str], None] = _to_stderr) -> str:
    """The name this player goes by with friends (``trumps host``/``join`` without ``--name``):
    the remembered one, else what ``ask()`` returns (asked again, after ``refused`` is told why,
    until it is a valid name), remembered from then on (where the config can be written), so
    that it is asked once instead of taking the login name. ``ask``'s ``EOFError`` (Ctrl-D) goes to the caller."""
    remembered = valid_name(load_config().get("name", ""))
    if remembered is not None:
        return remembered
    while (problem := name_problem(answer := ask())) is not None:
        refused(problem)
    name = " ".join(answer.split())
    with contextlib.suppress(OSError):  # an unwritable config: asked again next time
        save_config(name=name)
    return name
