"""Players' names: as game records keep them (``You``, ``AI (hard)``) and as the screen shows them."""

from __future__ import annotations

import re

from cli.i18n import N_, _
from cli.printable import printable

MY_NAME = "You"
"""The local player's name in game records (shown translated: :func:`shown_name`)."""
LEVEL_NAMES = {"easy": N_("easy"), "medium": N_("medium"), "hard": N_("hard"), "expert": N_("expert")}
"""The AI levels of ``engine.ai.LEVELS`` as the screen names them."""
_AI_NAME = re.compile(r"AI \((\w+)\)")


def shown_name(name: str) -> str:
    """A player's name from a record or an opponent, as the screen shows it: ``You`` and the
    AI are translated, other names (network players) stay as they are, made harmless.

    >>> shown_name("You"), shown_name("AI (hard)"), shown_name("Bob"), shown_name("Bob\x1b[2J")
    ('You', 'AI (hard)', 'Bob', 'Bob␛[2J')
    """
    if name == MY_NAME:
        return _("You")
    match = _AI_NAME.fullmatch(name)
    if match is not None:
        level = match.group(1)
        return _("AI ({level})").format(level=_(LEVEL_NAMES[level]) if level in LEVEL_NAMES else level)
    return printable(name)
