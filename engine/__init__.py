"""The rules of *Your trumps* (Svoi Kozyri) for two players, and its AI.

Pure: no I/O, no clock, no global randomness. A whole game through the API:

>>> from engine import Game, deal
>>> game = Game(deal(bytes(32), dealer=0, trumps="SH"))
>>> while game.result is None:
...     _ = game.play(game.position.legal_moves()[0])
>>> game.result.reason.value in ("out", "last card", "repetition", "move cap")
True
"""

from engine.cards import Card
from engine.deal import deal, shuffled_deck
from engine.errors import (
    CardError,
    IllegalMoveError,
    MoveError,
    NotationError,
    PositionError,
    RecordError,
    RulesError,
)
from engine.game import Game
from engine.moves import TAKE, Move
from engine.position import Illegal, Outcome, Position, Reason
from engine.rules import Rules

__all__ = [
    "TAKE",
    "Card",
    "CardError",
    "Game",
    "Illegal",
    "IllegalMoveError",
    "Move",
    "MoveError",
    "NotationError",
    "Outcome",
    "Position",
    "PositionError",
    "Reason",
    "RecordError",
    "Rules",
    "RulesError",
    "deal",
    "shuffled_deck",
]
