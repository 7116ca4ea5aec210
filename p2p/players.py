"""Who makes a side's decisions in a duel: the AI headless, or a person through an interface.

A :class:`Player` is asked for a trump preference before each game and for a
move whenever it is its turn; it hears chat lines, and learns whenever the
match advanced (an interface redraws, a network opponent hands on moves).
"""

from __future__ import annotations

import asyncio
import random
from typing import TYPE_CHECKING, Protocol

from engine import Game, Move
from p2p.text import N_, Text

if TYPE_CHECKING:
    from p2p.match import Match


class Player(Protocol):
    """The decisions of one side of a duel."""

    async def preference(self, game_number: int) -> str:
        """Trump preference for a game: a first and a different second suit, like ``"SH"``."""

    async def choose(self, game: Game) -> Move:
        """The move to play in ``game`` (it is this player's turn)."""

    def followed_hint(self) -> bool:
        """Whether the move just chosen followed the AI's hint (flagged on the move, in the record)."""

    def heard(self, text: str) -> None:
        """A chat line from the peer."""

    def advanced(self, match: Match) -> None:
        """A link (commit, reveal, move or final) was applied to ``match``."""


class BotPlayer:
    """The engine's AI at ``level``; ``trump`` as ``--trump`` takes it (random when ``None``)."""

    def __init__(self, level: str, trump: str | None = None, seed: int | None = None) -> None:
        from engine.ai import LEVELS

        if level not in LEVELS:
            template = N_("unknown AI level {level!r}: choose one of {levels}")
            raise ValueError(Text(template, level=level, levels=", ".join(LEVELS)))
        self.level = level
        self.trump = trump
        self.rng = random.Random(seed)

    async def preference(self, game_number: int) -> str:
        """The ``--trump`` choice, or a fresh random one each game."""
        from p2p.fairdeal import preference

        return preference(self.trump)

    async def choose(self, game: Game) -> Move:
        """The AI's move: the searching levels' computed off the event loop so the connection stays
        served; the easy level's one ply on it (~0.1 ms, less than the hop to a thread and back)."""
        from engine.ai import choose

        if self.level == "easy":  # it reads no history
            return choose(game.position, level=self.level, rng=self.rng)
        return await asyncio.to_thread(
            choose, game.position, level=self.level, history=game.positions, rng=self.rng
        )

    def followed_hint(self) -> bool:
        """A bot is the AI: it takes no hints."""
        return False

    def heard(self, text: str) -> None:
        """Bots do not read chat."""

    def advanced(self, match: Match) -> None:
        """Bots look at the game only when asked to move."""
