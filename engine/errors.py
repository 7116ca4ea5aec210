"""The errors the engine raises for bad input.

Every one is a :class:`ValueError`, so a caller that only wants "bad input or
not" can catch that; the subclasses say which kind of input was wrong, and the
message names the offending part.
"""

from __future__ import annotations


class NotationError(ValueError):
    """Text that is not valid card, move or position notation."""


class CardError(NotationError):
    """A card text that names no card (``"1X"``, ``"ZZ"``)."""


class MoveError(NotationError):
    """A move text that is not a move (``"KS,"``, ``"take 6H"``)."""


class PositionError(NotationError):
    """A position text that breaks the rules of notation.md."""


class IllegalMoveError(ValueError):
    """A well-formed move that the rules do not allow in this position."""


class RulesError(ValueError):
    """A rule option with a value the game does not know."""


class RecordError(ValueError):
    """A game record that is corrupt or describes an impossible game.

    ``line`` is the 1-based line of the record at fault, or ``None`` when the
    fault is not on one line (a missing header, say).
    """

    def __init__(self, message: str, line: int | None = None) -> None:
        self.line = line
        super().__init__(f"line {line}: {message}" if line is not None else message)
