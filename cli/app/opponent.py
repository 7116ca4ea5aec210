"""The opponent interface: everything the game needs from the other player.

The full-screen game (:class:`cli.app.screen.GameScreen`) plays a match between
the person at this terminal and an :class:`Opponent`. The AI
(:class:`cli.app.ai_opponent.AIOpponent`) is one implementation; a network
opponent is another, and needs nothing from the app beyond this module.

The game calls, in order:

1. ``attach(table)`` once, before anything else. ``table`` is the screen's
   side of the interface (a :class:`Table`): ``chat(text)`` puts a line in the
   chat line (``"Bob: good luck"``), ``status(text)`` in the connection
   status slot, which chat never overwrites (``"reconnecting to Bob… 2:51
   left"``; ``""`` clears it), ``offer_claim(why)`` asks the player whether to
   claim the game because the peer is away (``None`` withdraws the question),
   and ``end(reason)`` ends the game at once (an :class:`OpponentLeft`). Call
   them from the event loop's thread at any time.
2. ``await deal(number, dealer, trump)`` at the start of every game:
   ``number`` counts the games dealt in this screen from 1 (rematches go on
   counting), ``dealer`` is the seat that must deal by
   the match rule (the loser of the last game; after a draw the other seat),
   or ``None`` for the screen's first game, when the opponent picks the first
   dealer fairly. ``trump`` is the local player's trump choice (``"S"``,
   ``"H"``, ``"D"`` or ``"C"``). It returns the agreed :class:`Deal`.
3. During the game, whenever the opponent is to move: ``await move(game)``,
   the opponent's move in ``game.position`` (the app checks it is legal).
   After every move of the local player: ``played(game, move)``, with the move
   already applied to ``game``.
4. ``say(text)`` when the local player sends a chat line (a move-line entry
   starting with ``"``); ``claim()`` when the player accepts an offered claim
   (it returns whether the claim still stood).
5. ``close()`` once when the app ends, finished or not.

``deal`` and ``move`` may raise :class:`OpponentLeft` (peer gone, resigned,
cheating detected), and ``table.end`` takes one: the game then ends with its
message shown. Its ``awarded`` seat, when set, wins the game the engine did
not finish (a forfeit, or abandonment after the deal): the match score counts
it and the screen says who won and why ("bob left after the deal: you win by
forfeit."); otherwise the game ends unfinished. The app cancels a pending
``move`` when the local player undoes a move or starts a new game (only
possible when ``local`` is true).

Seats: the app's player is ``Deal.me`` (0 or 1) in the engine's terms, the
opponent the other; the record's ``Players`` header lists both in seat order.
Only games against the AI are offered for resuming; a resumed game goes on from
its record without ``deal``.

To play a match against a new kind of opponent::

    screen = GameScreen(opponent, MatchScore(games=3, me=seat), rules=rules, trump=None)
    asyncio.run(cli.app.application.play(screen))
"""

from __future__ import annotations

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
    note: str = ""
    """Why the trumps are not what a player asked for (both wanted one suit), shown with the deal."""


class OpponentLeft(Exception):
    """The opponent cannot go on; ``str(exc)`` says why, for the screen.

    ``awarded``: the seat that wins a game by it (forfeit or abandonment), if any; ``game``: that
    game's number in the match when it is one played already, the forfeit replacing its result
    (a peer away since before its end, docs/protocol.md "The game a forfeit awards").

    >>> exc = OpponentLeft("bob left after the deal", awarded=0)
    >>> str(exc), exc.awarded, exc.game
    ('bob left after the deal', 0, None)
    """

    def __init__(self, why: str = "", awarded: int | None = None, game: int | None = None) -> None:
        super().__init__(why)
        self.awarded = awarded
        self.game = game


class Table(Protocol):
    """The screen as an opponent sees it (see the module docs)."""

    def chat(self, text: str) -> None:
        """Show a chat line (or a note about the opponent)."""

    def status(self, text: str) -> None:
        """Show the connection status in its own slot; ``""`` clears it."""

    def offer_claim(self, why: str | None) -> None:
        """Ask the player whether to claim the game (``why``: the peer is away); ``None`` withdraws."""

    def end(self, reason: OpponentLeft) -> None:
        """End the game now, as if ``deal`` or ``move`` had raised ``reason``."""


class Opponent(Protocol):
    """The other player of a match (see the module docs for the call order)."""

    name: str
    """How the screen and the game records name the opponent: ``AI (hard)``."""
    local: bool
    """Whether the opponent lives on this machine: undo and new game mid-game are allowed."""
    resume_as: str | None
    """What a later run rebuilds this opponent from to continue an unfinished game (the AI's
    level); ``None``: its games cannot be continued."""
    quit_forfeits: bool
    """Whether quitting in the middle of a game hands it to the opponent (a network game)."""
    rings: bool
    """Whether to ring the terminal's bell when it becomes the local player's turn (a duel,
    where the player may be looking elsewhere while the friend thinks)."""
    hints: bool
    """Whether the player may ask the AI for a hint (F2): against the AI always; in a duel only
    when the host's rules allow it, and then the friend is told of every use (``hinted``)."""

    def attach(self, table: Table) -> None:
        """Receive the screen's side of the interface."""

    async def deal(self, number: int, dealer: int | None, trump: str) -> Deal:
        """Agree on the deal of game ``number`` (see the module docs)."""

    async def move(self, game: Game) -> Move:
        """The opponent's move in ``game.position``."""

    def played(self, game: Game, move: Move) -> None:
        """The local player played ``move`` (already applied to ``game``)."""

    def say(self, text: str) -> None:
        """The local player sends a chat line."""

    def hinted(self) -> None:
        """The local player was given the AI's hint (only when ``hints``): a duel flags the next
        move with it, so that the friend sees it and the record holds it."""

    def claim(self) -> bool:
        """The local player claims the game offered by ``table.offer_claim``; whether it still stood."""

    def hang_up(self) -> None:
        """The terminal is gone (its input ended) or the program was told to stop (SIGHUP,
        SIGTERM): the :meth:`close` that follows keeps what the same command can continue."""

    def close(self) -> None:
        """The app is ending."""
