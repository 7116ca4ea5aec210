"""The game screen's state: the parts it is made of, and what they share.

A :class:`GameScreen` puts together small parts, each testable alone: the game flow
(:class:`~cli.app.flow.GameFlow`: the match and the game, no prompt_toolkit, no disk),
the move line (:class:`~cli.app.move_line.MoveLine`: questions, picking, the highlight,
reading moves), saving (:class:`~cli.app.saving.Saver`), the help screen's scrolling
(:class:`~cli.app.help_view.HelpView`), the chat (:class:`~cli.app.chat.ChatLog`), the turns
(:class:`~cli.app.turns.Turns`: the deal, whose move it is, the opponent's calls run as tasks)
and the questions (:class:`~cli.app.questions.Questions`). It is the screen's side of the
opponent interface (:class:`~cli.app.opponent.Table`). What the keys do is
:mod:`cli.app.key_commands` and :mod:`cli.app.move_entry`; the layout only reads the screen.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import InitVar, dataclass, field

from cli.app import move_entry
from cli.app.chat import ChatLog
from cli.app.coach import Coach
from cli.app.flow import GameFlow
from cli.app.help_view import HelpView
from cli.app.move_line import MoveLine, Question
from cli.app.opponent import Opponent, OpponentLeft
from cli.app.questions import Questions
from cli.app.resume import SavedGame
from cli.app.saving import Saver
from cli.app.score import MatchScore
from cli.app.turns import Turns
from cli.i18n import _
from engine import Card, Rules


@dataclass
class Display:
    """How cards are drawn: letters instead of symbols, four suit colours, the colour theme
    (a name of :data:`cli.app.style.THEMES`)."""

    ascii: bool = False
    four_color: bool = False
    theme: str = "standard"


@dataclass
class GameScreen:
    """A match in play against ``opponent``, and what the screen shows of it."""

    opponent: InitVar[Opponent]
    match: InitVar[MatchScore]
    rules: InitVar[Rules | None] = None
    trump: str | None = None
    """The local player's trump suit letter, given on the command line; when ``None`` it is asked
    before every deal (rules.md: each player's trump is chosen before the deal)."""
    last_trump: str | None = None
    """The choice offered when asking (the one made last time)."""
    resume: SavedGame | None = None
    """A game to continue at once (``--resume``)."""
    offer: SavedGame | None = None
    """An unfinished game to offer at the start."""
    display: Display = field(default_factory=Display)
    notice: str = ""
    """A note about the start (the unfinished game could not be read, ...), kept in the chat."""
    show_opponent: bool = True
    saver: Saver = field(default_factory=lambda: Saver(keeps_unfinished=True))
    """Saves the game; whether it holds the unfinished game decides if games can be resumed."""
    message: str = ""
    error: bool = False

    def __post_init__(self, opponent: Opponent, match: MatchScore, rules: Rules | None) -> None:
        self.flow = GameFlow(opponent, match, rules or Rules(), self.display.ascii)
        self.line = MoveLine(self.display.ascii)
        self.help = HelpView()
        self.chats = ChatLog()
        self.coach = Coach()
        self.turns = Turns(self)
        self.questions = Questions(self)
        self.line.on_cut = lambda: move_entry.cut(self)
        self.invalidate: Callable[[], None] = lambda: None
        """Redraw the screen (the application's, once :meth:`connect` gave it)."""
        self.exit: Callable[[], None] = lambda: None
        """Leave the application."""
        self.bell: Callable[[], None] = lambda: None
        """Ring the terminal's bell."""
        self.hint_task: asyncio.Task[None] | None = None
        """The AI's hint being thought of (F2): closing the screen cancels it."""

    # ------------------------------------------------------------ life cycle

    def connect(
        self,
        invalidate: Callable[[], None],
        exit: Callable[[], None],
        bell: Callable[[], None] = lambda: None,
    ) -> None:
        """Give the screen the application's redraw, exit and the terminal's bell."""
        self.invalidate = invalidate
        self.exit = exit
        self.bell = bell

    def start(self) -> None:
        """The first question, or the first deal (call inside the running event loop)."""
        self.flow.opponent.attach(self)
        if self.notice:
            self.chat(self.notice)
        if self.resume is not None:
            self.turns.continue_game(self.resume)
        elif self.offer is not None:
            self.questions.offer_unfinished(self.offer)
        else:
            self.turns.choose_trump()

    def close(self) -> None:
        """Leave: the game is already saved; drop the tasks and tell the opponent."""
        self.turns.close()
        if self.hint_task is not None:
            self.hint_task.cancel()
        self.coach.close()
        self.flow.opponent.close()

    # ------------------------------------------------------- the opponent's table

    def end(self, reason: OpponentLeft) -> None:
        """The opponent cannot go on (see :meth:`cli.app.turns.Turns.end`)."""
        self.turns.end(reason)

    def offer_claim(self, why: str | None) -> None:
        """Ask whether to claim the game while the peer is away (``None``: it is back)."""
        self.questions.offer_claim(why)

    # ------------------------------------------------------------- the game

    def playable(self) -> set[Card]:
        """The cards of your hand that continue a legal move now (after those picked)."""
        return self.flow.next_cards(self.line.picked)

    def marked_cards(self) -> list[Card]:
        """The cards picked, or those of the move on the move line: the hand shows them marked."""
        return self.line.marked(self.flow.my_hand())

    def save(self, finished: bool = False) -> None:
        """Write the game's record (and the note offering it again); say so when that fails."""
        flow = self.flow
        if flow.game is None:
            return
        try:
            self.saver.save(flow.game, flow.match, flow.me, self.flow.opponent.resume_as, finished)
        except OSError as exc:
            self.say(_("Could not save the game: {error}").format(error=exc), error=True)

    # ---------------------------------------------------------- the move line

    def ask(self, question: Question) -> None:
        """Put a question on the move line; the message line over it starts empty, for what is
        said while it waits (a refused answer, a key that does not work now)."""
        self.line.ask(question)
        self.say("")

    # ----------------------------------------------------------------- chat

    def chat(self, text: str) -> None:
        """Show a chat line from or about the opponent (see :class:`~cli.app.opponent.Table`)."""
        self.chats.add(text)
        self.invalidate()

    def status(self, text: str) -> None:
        """Show the connection status in its slot; chat does not overwrite it."""
        self.chats.status = text
        self.invalidate()

    # -------------------------------------------------------------- helpers

    def not_now(self) -> None:
        """Say why a move cannot be made now."""
        name = self.flow.their_name
        if self.turns.thinking_since is not None:
            self.say(_("Wait: {name} is thinking.").format(name=name), error=True)
        elif self.flow.game is None or self.flow.game.result is not None:
            self.say(_("No game in play: answer the question below."), error=True)
        else:
            self.say(_("Wait: it is {name}'s turn.").format(name=name), error=True)

    def say(self, text: str, error: bool = False) -> None:
        """Put ``text`` on the message line (``error``: as a refusal)."""
        self.message, self.error = text, error
        self.invalidate()
