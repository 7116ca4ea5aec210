"""The opponent interface: everything the game needs from the other player.

The full-screen game (:class:`cli.app.session.Session`) plays a match between
the person at this terminal and an :class:`Opponent`. The AI
(:class:`cli.app.ai_opponent.AIOpponent`) is one implementation; a network
opponent is another, and needs nothing from the app beyond this module.

The game calls, in order:

1. ``attach(notify)`` once, before anything else. ``notify(text)`` puts one
   line in the screen's chat/status line (``"Bob: good luck"``,
   ``"reconnecting…"``, ``"peer silent for 20 s"``); call it from the event
   loop's thread at any time. ``notify("")`` clears the line.
2. ``await deal(number, dealer, trump)`` at the start of every game:
   ``number`` counts the games dealt in this session from 1 (rematches go on
   counting), ``dealer`` is the seat that must deal by
   the match rule (the loser of the last game; after a draw the other seat),
   or ``None`` for the session's first game, when the opponent picks the first
   dealer fairly. ``trump`` is the local player's trump choice (``"S"``,
   ``"H"``, ``"D"`` or ``"C"``). It returns the agreed :class:`Deal`.
3. During the game, whenever the opponent is to move: ``await move(game)``,
   the opponent's move in ``game.position`` (the app checks it is legal).
   After every move of the local player: ``played(game, move)``, with the move
   already applied to ``game``.
4. ``say(text)`` when the local player sends a chat line (a move-line entry
   starting with ``"``).
5. ``close()`` once when the app ends, finished or not.

``deal`` and ``move`` may raise :class:`OpponentLeft` (peer gone, resigned,
cheating detected): the game then ends unfinished with its message shown.
The app cancels a pending ``move`` when the local player undoes a move or
starts a new game (only possible when ``local`` is true).

Seats: the app's player is ``Deal.me`` (0 or 1) in the engine's terms, the
opponent the other; the record's ``Players`` header lists both in seat order.
Only games against the AI are offered for resuming; a resumed game goes on from
its record without ``deal``.

To play a match against a new kind of opponent::

    session = Session(opponent, Match(games=3, me=seat), rules=rules, trump=None)
    asyncio.run(cli.app.application.play(session))
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from engine import Game, Move


@dataclass(frozen=True)
class Deal:
    """How one game starts: the deal seed, the dealer and trumps (seat 0's first)."""

    seed: bytes
    dealer: int
    trumps: str
    me: int = 0


class OpponentLeft(Exception):
    """The opponent cannot go on; ``str(exc)`` says why, for the screen."""


class Opponent(Protocol):
    """The other player of a match (see the module docs for the call order)."""

    name: str
    """How the screen and the game records name the opponent: ``AI (hard)``."""
    local: bool
    """Whether the opponent lives on this machine: undo and new game mid-game are allowed."""

    def attach(self, notify: Callable[[str], None]) -> None:
        """Receive the callback that shows a chat or status line."""

    async def deal(self, number: int, dealer: int | None, trump: str) -> Deal:
        """Agree on the deal of game ``number`` (see the module docs)."""

    async def move(self, game: Game) -> Move:
        """The opponent's move in ``game.position``."""

    def played(self, game: Game, move: Move) -> None:
        """The local player played ``move`` (already applied to ``game``)."""

    def say(self, text: str) -> None:
        """The local player sends a chat line."""

    def close(self) -> None:
        """The app is ending."""
