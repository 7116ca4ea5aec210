"""The command line's copies of limits defined elsewhere, kept equal to their sources.

cli/options.py imports only the standard library (it builds every command's options on every
start), so it restates two constants instead of importing them: these tests tie each to its source.
"""

from __future__ import annotations

from cli import options
from engine import rules
from p2p import messages


def test_the_longest_match_is_the_protocols() -> None:
    assert options.MAX_GAMES == messages.MAX_GAMES


def test_the_pickup_choices_are_the_engines() -> None:
    assert options.PICKUP_CHOICES == rules.PICKUP_CHOICES
