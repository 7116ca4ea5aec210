"""Whose turn it is, and driving the opponent: the trump choice and the deal, the opponent's
moves (awaited as tasks, with a ticker that redraws its thinking time), a game's end and
what follows it.

:class:`Turns` is a part of the :class:`~cli.app.screen.GameScreen`: it reads and writes
the screen's game flow and move line, and says what happens on its message line.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Coroutine
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from cli import config
from cli.app.board import move_words
from cli.app.flow import RECORD_DATE
from cli.app.opponent import Deal, OpponentLeft
from cli.app.questions import trump_question
from cli.app.resume import SavedGame
from cli.i18n import _
from engine import Game
from engine.cards import SUITS

if TYPE_CHECKING:
    from cli.app.screen import GameScreen


class Turns:
    """The game screen's driving of the game: dealing, asking the opponent for its moves, ending."""

    def __init__(self, screen: GameScreen) -> None:
        self.screen = screen
        self.thinking_since: float | None = None
        """When the opponent began thinking of the move awaited (monotonic), ``None`` when none is."""
        self._fixed_trump = screen.trump is not None
        self._task: asyncio.Task[None] | None = None
        """The opponent's call awaited: the deal or its move."""
        self._ticker: asyncio.Task[None] | None = None

    def cancel(self) -> None:
        """Stop awaiting the opponent's deal or move (the game was undone or abandoned)."""
        if self._task is not None:
            self._task.cancel()

    def close(self) -> None:
        """The screen is leaving: nothing more is awaited."""
        for task in (self._task, self._ticker):
            if task is not None:
                task.cancel()

    def continue_game(self, saved: SavedGame) -> None:
        """Go on with ``saved``, at its last move."""
        s = self.screen
        s.offer = s.resume = None
        attached = saved.opponent is s.flow.opponent  # a network opponent continues its own duel
        s.say(s.flow.resume(saved))
        if not attached:
            s.flow.opponent.attach(s)
        s.saver.path = saved.path
        s.trump = SUITS[saved.game.start.trumps[s.flow.me]]
        self.advance()

    # ---------------------------------------------------------------- the deal

    def choose_trump(self) -> None:
        """Ask for the trump suit of the game about to be dealt (unless the command line gave it),
        then deal."""
        s = self.screen
        if self._fixed_trump and s.trump is not None:
            self._trump_chosen(s.trump)  # given on the command line: also the next "last choice"
            return
        s.ask(trump_question(s.last_trump, s.display.ascii, self._trump_chosen))

    def _trump_chosen(self, suit: str) -> None:
        self.screen.trump = self.screen.last_trump = suit
        with contextlib.suppress(OSError):
            config.save_config(trump=suit)
        self._deal()

    def _deal(self) -> None:
        number, dealer = self.screen.flow.next_deal()
        assert self.screen.trump is not None
        self._run(self._deal_task(number, dealer, self.screen.trump))

    async def _deal_task(self, number: int, dealer: int | None, trump: str) -> None:
        self.screen.say(_("Dealing…"))
        try:
            deal = await self.screen.flow.opponent.deal(number, dealer, trump)
            self._start_game(deal)
        except Exception as exc:  # a plug-in opponent's failure ends the game, never the app
            self.end(exc)

    def _start_game(self, deal: Deal) -> None:
        s = self.screen
        text = s.flow.begin(deal, datetime.now(UTC).strftime(RECORD_DATE))
        s.coach.close()  # the analysis of the last game stops: its search would slow the new one
        s.saver.new_game()
        s.line.new_hand()
        if deal.note:  # not in the chat, where it would push the verification code out of sight
            text = f"{text} {deal.note}"
        s.say(text)
        s.save()
        self.advance()

    # --------------------------------------------------------------- the moves

    def advance(self) -> None:
        """After a move (or the deal): the result, the opponent's move awaited, or the player's turn."""
        s = self.screen
        game = s.flow.game
        assert game is not None
        if game.result is not None:
            self._finish()
        elif game.position.turn != s.flow.me:
            self._run(self._opponent_move(game, len(game.moves)))
        else:
            s.line.settle(s.flow.my_hand(), s.playable())
        s.invalidate()

    async def _opponent_move(self, game: Game, ply: int) -> None:
        s = self.screen
        self.thinking_since = time.monotonic()
        self._ticker = asyncio.ensure_future(self._tick())
        try:
            move = await s.flow.opponent.move(game)
        except Exception as exc:  # a plug-in opponent's failure ends the game, never the app
            self.end(exc)
            return
        finally:
            self.thinking_since = None
            self._ticker.cancel()
        if game is not s.flow.game or len(game.moves) != ply:
            return  # undone or abandoned meanwhile
        illegal = s.flow.play_theirs(move)
        if illegal is not None:
            self.end(OpponentLeft(illegal))
            return
        s.say(move_words(game, len(game.moves), s.flow.their_name, s.display.ascii))
        s.save()
        if s.flow.opponent.rings and s.flow.my_turn:
            s.bell()  # your turn: a friend's move may take a while, and you may look elsewhere
        self.advance()

    async def _tick(self) -> None:
        while True:
            await asyncio.sleep(0.2)
            self.screen.invalidate()

    def _run(self, coroutine: Coroutine[None, None, None]) -> None:
        self._task = asyncio.ensure_future(coroutine)

    # ------------------------------------------------------------ the game's end

    def _finish(self) -> None:
        prompt = self.screen.flow.finish()
        self.screen.save(finished=True)
        self.screen.questions.after_result(prompt)

    def end(self, reason: Exception) -> None:
        """The opponent cannot go on: end the game, scoring a game awarded to a seat.

        Also what a failing ``deal`` or ``move`` leads to; a pending one is cancelled.
        """
        s = self.screen
        if self._task is not None and self._task is not asyncio.current_task():
            self._task.cancel()
        if s.flow.game is not None and s.flow.game.result is not None:  # the result stays on the board
            s.flow.left = isinstance(reason, OpponentLeft)
            if s.flow.match_ended:  # no next game or match to offer; why stays in the chat
                s.chat(str(reason))
                s.questions.ask_to_quit(_("The match is over. Quit? [Y/n]"), "yes")
            else:
                s.say(str(reason), error=True)
            return
        s.save()
        s.flow.end(reason)  # the table shows why, over the question
        if s.flow.match_ended:
            question = _("The match is over. Quit? [Y/n]")
        else:
            question = _("The game cannot go on. Quit? [Y/n]")
        s.questions.ask_to_quit(question, "yes")
