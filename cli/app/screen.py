"""The game screen's state: the parts it is made of, and what they share.

A :class:`GameScreen` puts together small parts, each testable alone: the game flow
(:class:`~cli.app.flow.GameFlow`: the match and the game, no prompt_toolkit, no disk),
the move line (:class:`~cli.app.move_line.MoveLine`: questions, picking, the highlight,
reading moves), saving (:class:`~cli.app.saving.Saver`), the help screen's scrolling
(:class:`~cli.app.help_view.HelpView`), the chat (:class:`~cli.app.chat.ChatLog`), the turns
(:class:`~cli.app.turns.Turns`: the deal, whose move it is, the opponent's calls run as tasks)
and the questions (:class:`~cli.app.questions.Questions`). It is the screen's side of the
opponent interface (:class:`~cli.app.opponent.Table`). The layout only reads it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from dataclasses import InitVar, dataclass, field

from cli import config
from cli.app import move_entry
from cli.app.ai_opponent import suggest
from cli.app.cards import move_text
from cli.app.chat import ChatLog
from cli.app.coach import Coach
from cli.app.flow import GameFlow
from cli.app.help_view import HelpView
from cli.app.move_line import MoveLine, Question, yes_no
from cli.app.opponent import Opponent, OpponentLeft
from cli.app.questions import Questions
from cli.app.resume import SavedGame
from cli.app.saving import Saver
from cli.app.score import MatchScore
from cli.app.turns import Turns
from cli.coach_words import advice_words
from cli.i18n import _, ngettext
from engine import Card, Game, Rules


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
        self._hint_task: asyncio.Task[None] | None = None

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
        if self._hint_task is not None:
            self._hint_task.cancel()
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

    # ------------------------------------------------------------------ keys

    def hint(self) -> None:
        """Ask the strongest AI level what it would play; the move goes on the move line."""
        if not self.flow.opponent.hints:
            self.say(
                _("No hints in this duel: the match was set up without them (trumps host --hints allows them)."),
                error=True,
            )
            return
        if not self.flow.my_turn:
            self.not_now()
            return
        assert self.flow.game is not None
        self._hint_task = asyncio.ensure_future(self._hint(self.flow.game))

    async def _hint(self, game: Game) -> None:
        self.say(_("Thinking of a hint…"))
        position = game.position
        advice = await asyncio.get_running_loop().run_in_executor(None, suggest, game)
        if game is self.flow.game and game.position is position:  # nothing played or undone meanwhile
            self.line.put(move_text(advice.move, self.display.ascii))
            self.flow.opponent.hinted()
            why = advice_words(advice, lambda move: move_text(move, self.display.ascii), self.flow.their_name)
            if self.flow.opponent.local:
                text = _("Hint: {why}. Enter plays it.")
            else:
                text = _("Hint: {why}. Enter plays it ({name} sees that your move followed a hint).")
            self.say(text.format(why=why, name=self.flow.their_name))

    def analyze(self) -> None:
        """Open the coach's analysis of the game just over (see :mod:`cli.app.coach`)."""
        game = self.flow.game
        if game is None or game.result is None:
            self.say(_("The analysis opens once the game is over."), error=True)
            return
        self.coach.start(game, self.flow.me, self.saver.path, self.invalidate)
        self.invalidate()

    def undo(self) -> None:
        """Take back your last move (and the opponent's reply to it)."""
        if not self.flow.opponent.local:
            self.say(_("Undo is only for games against the AI."), error=True)
            return
        if self.flow.game is None:
            self.not_now()
            return
        if not self.flow.in_progress:
            self.say(_("The game is over: nothing to undo."), error=True)
            return
        self.turns.cancel()
        count = self.flow.undo()
        if not count:
            self.say(_("Nothing to undo yet."), error=True)
            return
        self.line.clear()
        self.say(ngettext("Took back {count} move.", "Took back {count} moves.", count).format(count=count))
        self.save()
        self.turns.advance()

    def new_game(self) -> None:
        """Deal a new game (the current one, if any, is saved as abandoned)."""
        if (
            self.line.question is not None
            and self.flow.game is not None
            and self.flow.game.result is not None
        ):
            self.questions.answer("yes")
            return
        if self.flow.match_ended:  # the duel is over: nothing more can be dealt
            self.say(_("The match is over: Ctrl-Q quits."), error=True)
            return
        if self.flow.in_progress and not self.flow.opponent.local:
            self.say(_("A network game cannot be abandoned for a new one."), error=True)
            return
        if self.flow.in_progress:
            self.ask(yes_no(_("Abandon this game and deal a new one? [y/N]"), "no", self._abandon_answer))
        elif self.line.question is None:
            self.turns.choose_trump()
        else:
            self.not_now()

    def _abandon_answer(self, answer: str) -> None:
        if answer == "yes":
            self.turns.cancel()
            self.save(finished=True)
            path = self.saver.path
            self.say(_("Abandoned game saved as {file}.").format(file=path.name if path else ""))
            self.flow.game = None
            self.turns.choose_trump()
        else:
            self.say("")

    def quit(self) -> None:
        """Leave; mid-game, ask first, saying what quitting costs."""
        if self.questions.quitting:
            self.questions.quit_answer("yes")
        elif self.flow.in_progress:
            resumable = self.saver.resumes(self.flow.opponent.resume_as)
            self.questions.ask_to_quit(self.flow.quit_question(resumable), "no")
        else:
            self.exit()

    def interrupt(self) -> None:
        """Ctrl-C: cancel the question asked with its :attr:`~cli.app.move_line.Question.cancel`
        answer (no to quitting: Ctrl-C never forfeits), or leave where no answer cancels it (the
        trump suit, the unfinished game offered: nothing is at stake there); with no question,
        what Ctrl-Q does (mid-game it asks first)."""
        question = self.line.question
        if question is None:
            self.quit()
        elif question.cancel is None:
            self.exit()
        else:
            self.questions.cancel(question)

    def toggle_opponent(self) -> None:
        """Hide or show the opponent's hand."""
        self.show_opponent = not self.show_opponent
        with contextlib.suppress(OSError):
            config.save_config(show_opponent="yes" if self.show_opponent else "no")

    def toggle_help(self) -> None:
        """Open or close the help screen."""
        self.help.toggle()

    def scroll_help(self, lines: int) -> None:
        """Scroll the help screen."""
        self.help.scroll(lines)

    # ----------------------------------------------------------------- chat

    def chat(self, text: str) -> None:
        """Show a chat line from or about the opponent (see :class:`~cli.app.opponent.Table`)."""
        self.chats.add(text)
        self.invalidate()

    def scroll_chat(self, lines: int) -> None:
        """PgUp and PgDn: scroll the chat back (``lines`` > 0) or on."""
        self.chats.scroll(lines)
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
