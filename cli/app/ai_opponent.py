"""The AI as an :class:`~cli.app.opponent.Opponent`: ``engine.ai.choose`` off the event loop."""

from __future__ import annotations

import asyncio
import functools
import hashlib
import os
import random

from cli.app.names import shown_name
from cli.app.opponent import Deal, Table
from cli.i18n import _
from engine import Game, Move
from engine.ai import DEFAULT_SECONDS, Advice, advise, choose
from engine.cards import SUITS

HINT_SECONDS = 1.0
"""The hint's thinking time (F2): the strongest level's search, given one second — more than
``hard``'s 0.5 s a move, less than ``expert``'s 2 s, so that asking is quick."""


def game_seed(seed: bytes, number: int) -> bytes:
    """The deal seed of game ``number`` of a screen started with ``seed``.

    The first game uses ``seed`` itself, so ``--seed`` reproduces that deal:

    >>> game_seed(b"ab", 1), game_seed(b"ab", 2) == game_seed(b"ab", 2), game_seed(b"ab", 2) == b"ab"
    (b'ab', True, False)
    """
    if number == 1:
        return seed
    return hashlib.sha256(seed + number.to_bytes(4, "big")).digest()


class AIOpponent:
    """The built-in AI at one of ``engine.ai.LEVELS``; it always sits in seat 1.

    With a ``seed`` the whole screen is reproducible: the deals, the first
    dealer, the AI's trump and its random choices.
    """

    local = True
    quit_forfeits = False
    rings = False
    hints = True

    def __init__(self, level: str, seed: bytes | None = None, seconds: float | None = None) -> None:
        """``seconds`` replaces the level's own time budget (tests use a short one)."""
        self.level = level
        self.name = f"AI ({level})"
        self.resume_as: str | None = level
        self.seconds = seconds if seconds is not None else DEFAULT_SECONDS.get(level)
        """The thinking time a move: ``hard`` 0.5 s, ``expert`` 2 s (``engine.ai.DEFAULT_SECONDS``);
        ``None`` for ``easy`` (no search) and ``medium`` (400 nodes, no clock)."""
        self._seed = seed if seed is not None else os.urandom(32)
        self._deal_rng = random.Random(self._seed)
        self._move_rng = random.Random(self._seed[::-1])
        self._table: Table | None = None

    def attach(self, table: Table) -> None:
        """Keep the screen (the AI only uses it to answer chat)."""
        self._table = table

    async def deal(self, number: int, dealer: int | None, trump: str) -> Deal:
        """The deal of game ``number``; the AI takes a trump other than ``trump``."""
        if dealer is None:
            dealer = self._deal_rng.randrange(2)
        mine = self._deal_rng.choice([s for s in SUITS if s != trump])
        return Deal(game_seed(self._seed, number), dealer, trump + mine, me=0)

    async def move(self, game: Game) -> Move:
        """Think in a worker thread so that the screen stays live."""
        think = functools.partial(
            choose,
            game.position,
            self.level,
            seconds=self.seconds,
            history=game.positions[:-1],
            rng=self._move_rng,
        )
        return await asyncio.get_running_loop().run_in_executor(None, think)

    def played(self, game: Game, move: Move) -> None:
        """Nothing to do: the AI reads the game when it is its turn."""

    def hinted(self) -> None:
        """Hints against the AI are nobody else's business."""

    def say(self, text: str) -> None:
        """The AI does not chat, and says so."""
        if self._table is not None:
            self._table.chat(_("{name} only answers with cards.").format(name=shown_name(self.name)))

    def claim(self) -> bool:
        """The AI never goes away: there is nothing to claim."""
        return False

    def hang_up(self) -> None:
        """The screen saves the game as it stands: nothing else to keep."""

    def close(self) -> None:
        """Nothing to release."""


def suggest(game: Game) -> Advice:
    """The hint: the strongest level's move in ``game`` and why, thought for :data:`HINT_SECONDS`."""
    return advise(game.position, seconds=HINT_SECONDS, history=game.positions[:-1])
