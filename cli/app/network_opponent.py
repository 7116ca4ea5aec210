"""A friend over the network as an :class:`~cli.app.opponent.Opponent` of the full-screen game.

The duel itself (:class:`p2p.duel.Duel`: commitments, reveals, signed moves,
the record) runs as a background task from ``attach`` on. This class sits
between it and the screen: the app's ``deal`` supplies this player's trump
choice and waits for the fair deal; the app's ``played`` hands the local move
to the duel; the app's ``move`` waits until the peer's move has been received
and checked. Chat goes both ways through the chat line. When the app deals
past the end of the match, both sides agree on a rematch over the same
connection (``rematch`` messages) and a new duel starts from the old one's end.

When the connection drops the duel reconnects by itself; its status lines
("reconnecting to Bob… 2:51 left", "Bob silent for 8 s") go to the screen's
status slot. Once the peer has been away past the limit the screen asks the
player whether to claim the game by forfeit (``table.offer_claim``); the chat
line ``/claim`` (a move-line entry ``"/claim``) claims it too. When the duel
ends early the game ends on the screen at once (``table.end``), a game awarded
by forfeit or abandonment counted for the seat it went to.

A duel given a :class:`~p2p.saved.SavedMatch` is restart-safe: a program stopped by SIGHUP or
SIGTERM pauses it (the peer waits) instead of quitting, and :func:`cli.app.duel_screen.play_duel` with
the match read back opens the screen at the chain's position, the game in progress with its moves on the table;
its chat is kept beside the saved match (``<saved>.chat``, one JSON string a line) and shown again.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Coroutine
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from cli.app.cards import move_text
from cli.app.chat_file import ChatFile
from cli.app.duel_summary import ending_words, host_words, left_why
from cli.app.opponent import Deal, OpponentLeft, Table
from cli.app.trump_choice import names_second, trump_clash, trump_prefs
from cli.home import Home
from cli.i18n import _, translated
from engine import Game, Move
from p2p.channel import Channel
from p2p.duel import Duel, Report
from p2p.duel_line import Reconnector
from p2p.duel_machine import PAUSE
from p2p.errors import P2PError
from p2p.fairdeal import preference
from p2p.handshake import Session
from p2p.identity import Identity
from p2p.liveness import Patience
from p2p.match import Match
from p2p.messages import MoveMsg
from p2p.text import Text

if TYPE_CHECKING:

    from p2p.saved import SavedMatch

FINALS_GRACE = 5.0
"""Seconds a leaving player waits for the match's final signatures."""
CLAIM = "/claim"
"""The chat line that claims the game by forfeit once the peer has been away past the limit."""


class NetworkOpponent:
    """The peer of a handshaken session, seen by the app as its opponent."""

    local = False
    resume_as: str | None = None
    quit_forfeits = True
    rings = True

    def __init__(
        self,
        channel: Channel,
        session: Session,
        me: Identity,
        home: Home,
        reconnector: Reconnector | None = None,
        patience: Patience | None = None,
        choice: str | None = None,
        saved: SavedMatch | None = None,
        restored: Match | None = None,
    ) -> None:
        """``reconnector``: how to get the peer back after a drop; ``patience``: its limits (by
        default the match's forfeit limit; the forfeit is never claimed without the player's ``/claim``); ``choice``: the trump
        suits of ``--trump`` (``SH``), whose second choice holds while the first is played.

        ``saved``: where the duel keeps what a restart needs (it is then restart-safe, as a bot's
        is); ``restored``: the unfinished match it continues (``channel`` is a fresh connection)."""
        self.session, self.me, self.home = session, me, home
        self.choice = choice
        self.hints = session.terms.hints
        self._hinted = False
        """Whether the player was given a hint since their last move."""
        self.seat = session.seat
        self.name = session.names[1 - self.seat]
        self.reconnector = reconnector
        self.chat_file = None if saved is None else ChatFile.beside(saved.path)
        """Where a restart-safe duel keeps its chat, so that a restarted screen shows it again."""
        self._continued = restored is not None
        self.patience = replace(patience or Patience(forfeit_after=session.forfeit_limit), auto_claim=False)
        self.duel = Duel(
            channel, session, me, self, home.records, None, None, reconnector, self.patience, self._status,
            saved, restored,
        )  # fmt: skip
        self._offset = 0
        """Games of the earlier matches on this connection: the app numbers games across rematches."""
        self.report: Report | None = None
        self._task: asyncio.Task[Report] | None = None
        self._table: Table | None = None
        self._offered: Text | None = None
        self._connection_shown = False
        """Whether the status slot holds the duel's own line about the connection (not a refused
        stranger's): the peer's next move clears it."""
        """The claim the screen was last offered (the duel's ``claimable``)."""
        self._trumps: dict[int, asyncio.Future[str]] = {}
        self._seconds: dict[int, bool] = {}
        """Whether the local player named a second choice of trumps for each game dealt."""
        self._moves: asyncio.Queue[Move] = asyncio.Queue()
        self._changed = asyncio.Event()
        self._number = 0 if restored is None else restored.number
        self._stop: str | None = None
        """The message the duel is cancelled with on leaving: :data:`~p2p.duel.PAUSE` pauses it."""
        self._background_tasks: set[asyncio.Task[None]] = set()

    # ------------------------------------------------------ the app's side

    def attach(self, table: Table) -> None:
        """Start the duel and show the verification code; from now on connections the host
        refuses are reported in the status slot (never written behind the screen)."""
        self._table = table
        if self.reconnector is not None:
            hosting = self.session.seat == self.session.terms.host_seat
            words = host_words if hosting else translated  # a refusal's advice is the joiner's
            self.reconnector.report_to(lambda text: self.show_status(words(text)))
        self._start()
        if self.session.code:
            text = _("Playing {name}. Verification code {code}: {name} must see the same.")
        else:  # a session read back from the saved match: its code needs the secret, not kept
            text = _("Playing {name} again: the match you both checked goes on.")
        for line in self._chat_kept():
            table.chat(line)
        table.chat(text.format(name=self.name, code=self.session.code))

    async def deal(self, number: int, dealer: int | None, trump: str) -> Deal:
        """Commit to ``trump`` (second choice: the next suit), then wait for the fair deal.

        A game beyond the match asks the peer for a rematch on the same connection.
        """
        if number > self._offset + self.session.terms.games:
            await self._rematch()
        self._number = number
        future = self._trump(number)
        if not future.done():
            chosen = self.choice if self.choice and self.choice[0] == trump else trump
            self._seconds[number] = names_second(chosen)
            future.set_result(preference(chosen))
        match, local = self.duel.match, number - self._offset
        await self._until(lambda: len(match.results) >= local or (match.number == local and match.revealed))
        if len(match.results) >= local:
            result = match.results[local - 1]
            return Deal(
                result.seed, result.dealer, result.trumps, self.seat, self._clash(local, result.dealer)
            )
        assert match.dealer is not None
        return Deal(match.seed, match.dealer, match.trumps, self.seat, self._clash(local, match.dealer))

    def _clash(self, number: int, dealer: int) -> str:
        """Why a player did not get the trumps they asked for in game ``number`` (of this match),
        or ``""``."""
        prefs = trump_prefs(self.duel.match, number)
        named = self._seconds.get(number + self._offset, False)
        clash = None if prefs is None else trump_clash(prefs, dealer, self.seat, self.name, named)
        return "" if clash is None else translated(clash)

    async def move(self, game: Game) -> Move:
        """The peer's next move, once received and checked; a move that followed the AI's hint
        is said so in the chat."""
        ply = len(game.moves)
        await self._until(lambda: len(self._played(self._number)) > ply)
        move = self._played(self._number)[ply]
        if self._connection_shown and self._table is not None:
            self._table.status("")  # the move came over a working line: "reconnected…" has had its say
            self._connection_shown = False
        if self._hint_flagged(ply + 1):
            self._chat(
                _("{name} asked the AI for a hint before playing {move}.").format(
                    name=self.name, move=move_text(move)
                )
            )
        return move

    def _hint_flagged(self, n: int) -> bool:
        number = self._number - self._offset
        return any(
            isinstance(link, MoveMsg) and link.game == number and link.n == n and link.hint
            for _seat, link in self.duel.match.links
        )

    def played(self, game: Game, move: Move) -> None:
        """Hand the local move to the duel, which signs and sends it."""
        self._moves.put_nowait(move)

    def hinted(self) -> None:
        """The player was given a hint: the next move says so."""
        self._hinted = True

    def say(self, text: str) -> None:
        """Send a chat line; ``/claim`` claims the game when the peer has been away too long."""
        if text.strip() == CLAIM:
            if not self.claim():
                self._chat(_("{name} is not away long enough to claim the game.").format(name=self.name))
            return
        if text:
            self._background(self._send_chat(text))
            self._chat(_("You: {text}").format(text=text))

    def claim(self) -> bool:
        """Claim the game by forfeit, if the peer is still away past the limit."""
        return self.duel.claim()

    def close(self) -> None:
        """Leave: the duel tells the peer and saves the record, then the connection closes.

        When every game is over and only the final signatures are on their way,
        they get a few seconds to arrive first, so that the match ends complete.
        """
        self._background(self._close())

    def hang_up(self) -> None:
        """The program stops but the match does not (a closed terminal, SIGHUP, SIGTERM): the next
        :meth:`close` pauses a restart-safe duel, whose peer waits for the same command to continue it."""
        self._stop = PAUSE

    async def _close(self) -> None:
        task = self._task
        if task is not None and not task.done():
            if len(self.duel.match.results) == self.session.terms.games:
                with contextlib.suppress(TimeoutError, asyncio.CancelledError):
                    await asyncio.wait_for(asyncio.shield(task), FINALS_GRACE)
            task.cancel(self._stop)
            with contextlib.suppress(asyncio.CancelledError):
                await task  # the duel tells the peer and saves the record
        await self.duel.channel.close()

    async def finished(self) -> Report:
        """The duel's report once it has ended (``quit`` when the local player left first: a
        game whose deal we could know then goes to the peer, as the peer's report says too)."""
        if self._background_tasks:
            await asyncio.gather(*self._background_tasks, return_exceptions=True)
        saved = self.duel.files.saved
        if self.chat_file is not None and (saved is None or not saved.path.exists()):
            self.chat_file.drop()  # the match is over: nothing will show its chat again
        if self._task is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        return self.duel.quit_report() if self.report is None else self.report

    # --------------------------------------------------- the duel's side

    async def preference(self, game_number: int) -> str:
        """The trump preference the app passes to :meth:`deal`."""
        return await self._trump(self._offset + game_number)

    async def choose(self, game: Game) -> Move:
        """The move the local player makes on the screen."""
        return await self._moves.get()

    def followed_hint(self) -> bool:
        """Whether the move just chosen came after a hint (the duel flags it); the flag is spent."""
        used, self._hinted = self._hinted, False
        return used

    def heard(self, text: str) -> None:
        """Show the peer's chat line."""
        self._chat(f"{self.name}: {text}")

    def advanced(self, match: Match) -> None:
        """Wake whatever the app is waiting for."""
        self._changed.set()

    # ------------------------------------------------------------ helpers

    def _chat(self, text: str) -> None:
        if self._table is not None:
            self._table.chat(text)
        if self.chat_file is not None:
            self.chat_file.add(text)

    def _chat_kept(self) -> list[str]:
        """The chat of the match this duel continues; a new match starts its chat afresh."""
        if self.chat_file is None:
            return []
        if not self._continued:
            self.chat_file.drop()
            return []
        return self.chat_file.kept()

    def show_status(self, text: str) -> None:
        """Show ``text`` in the screen's status slot (a line about the connection, not the game)."""
        if self._table is not None:
            self._table.status(text)
            self._connection_shown = False

    def _status(self, text: str | Text) -> None:
        """The duel's status line, and the claim it offers or withdraws."""
        if self._table is None:
            return
        self._table.status(translated(text))
        self._connection_shown = bool(text)
        claimable = self.duel.claimable
        if claimable is not self._offered:
            self._offered = claimable
            self._table.offer_claim(None if claimable is None else translated(claimable))

    def _trump(self, number: int) -> asyncio.Future[str]:
        if number not in self._trumps:
            self._trumps[number] = asyncio.get_running_loop().create_future()
        return self._trumps[number]

    def _start(self) -> None:
        self._task = asyncio.ensure_future(self.duel.run())
        self._task.add_done_callback(self._ended)

    async def _rematch(self) -> None:
        """Agree with the peer on another match over this connection, and start it."""
        task = self._task
        if task is not None:  # the final signatures may still be on their way
            await asyncio.wait({task})
            if not task.cancelled() and task.exception() is None:
                self.report = task.result()
        if self.report is None or self.report.end != "complete":
            raise self._left()
        self._chat(_("Asking {name} for a rematch…").format(name=self.name))
        try:
            duel = await self.duel.rematch(True)
        except P2PError as exc:
            raise OpponentLeft(
                _("{name} left: {error}").format(name=self.name, error=translated(exc))
            ) from None
        if duel is None:
            raise OpponentLeft(_("{name} does not want a rematch.").format(name=self.name))
        self._offset += self.session.terms.games
        self.report = None
        self.duel = duel
        self._start()
        self._chat(_("Rematch with {name}: the loser of the last game deals.").format(name=self.name))

    def _played(self, number: int) -> tuple[Move, ...]:
        number -= self._offset
        match = self.duel.match
        if number <= len(match.results):
            return match.results[number - 1].game.moves
        return match.game.moves if match.game is not None and match.number == number else ()

    async def _until(self, ready: Callable[[], bool]) -> None:
        while True:
            self._changed.clear()
            if ready():
                return
            if self._task is not None and self._task.done():
                raise self._left()
            await self._changed.wait()

    def _ended(self, task: asyncio.Task[Report]) -> None:
        if not task.cancelled() and task.exception() is None:
            self.report = task.result()
            if self.report.error is not None and self._table is not None:
                self._table.status("")  # the connection is over: nothing more to wait for
                self._table.end(self._left())
                self._background(self.duel.channel.close())
        self._changed.set()

    def _left(self) -> OpponentLeft:
        """Why the duel ended early, and the seat awarded the unfinished game, if any."""
        report = self.report
        if report is None or report.error is None:
            return OpponentLeft(_("The connection to {name} is closed.").format(name=self.name))
        if report.awarded is not None:
            played = report.awarded_game if report.replaces_played else None
            return OpponentLeft(left_why(report), report.awarded, played)
        return OpponentLeft(ending_words(report) or "")

    async def _send_chat(self, text: str) -> None:
        try:
            await self.duel.say(text)
        except P2PError as exc:
            self._chat(_("Chat not sent: {error}").format(error=translated(exc)))

    def _background(self, coroutine: Coroutine[Any, Any, None]) -> None:
        task = asyncio.ensure_future(coroutine)
        self._background_tasks.add(task)
        task.add_done_callback(self._background_tasks.discard)
