"""The game screen's state and every action a key can trigger.

A :class:`GameScreen` puts together small parts, each testable alone: the game flow
(:class:`~cli.app.flow.GameFlow`: the match and the game, no prompt_toolkit, no disk),
the move line (:class:`~cli.app.move_line.MoveLine`: questions, picking, the highlight,
reading moves), saving (:class:`~cli.app.saving.Saver`), the help screen's scrolling
(:class:`~cli.app.help_view.HelpView`) and the chat (:class:`~cli.app.chat.ChatLog`). It runs
the opponent's calls as tasks, and it is the screen's side of the opponent interface
(:class:`~cli.app.opponent.Table`). The layout only reads it.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Coroutine
from dataclasses import InitVar, dataclass, field
from datetime import UTC, datetime

from cli import config
from cli.app.ai_opponent import suggest
from cli.app.board import move_words
from cli.app.cards import SUIT_NAMES, card_text, move_text, suit_text
from cli.app.chat import ChatLog
from cli.app.coach import Coach
from cli.app.flow import RECORD_DATE, GameFlow
from cli.app.help_view import HelpView
from cli.app.move_line import MOVE_LINE_LENGTH, MoveLine, Question, yes_no
from cli.app.names import shown_name
from cli.app.opponent import Deal, Opponent, OpponentLeft
from cli.app.resume import SavedGame
from cli.app.saving import Saver
from cli.app.score import MatchScore
from cli.coach_words import advice_words
from cli.i18n import _, ngettext
from engine import TAKE, Card, Game, Move, NotationError, Rules
from engine.cards import SUITS

RESULT_GRACE = 0.7
"""Seconds after a game ends during which Enter does not yet start the next one,
so that a player who was typing fast still sees the result."""


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
    thinking_since: float | None = None

    def __post_init__(self, opponent: Opponent, match: MatchScore, rules: Rules | None) -> None:
        self.flow = GameFlow(opponent, match, rules or Rules(), self.display.ascii)
        self.line = MoveLine(self.display.ascii)
        self.help = HelpView()
        self.chats = ChatLog()
        self.coach = Coach()
        self.line.on_cut = self._cut
        self._fixed_trump = self.trump is not None
        self._invalidate: Callable[[], None] = lambda: None
        self._exit: Callable[[], None] = lambda: None
        self._bell: Callable[[], None] = lambda: None
        self._task: asyncio.Task[None] | None = None
        self._hint_task: asyncio.Task[None] | None = None
        self._ticker: asyncio.Task[None] | None = None

    # ------------------------------------------------------------ life cycle

    def connect(
        self,
        invalidate: Callable[[], None],
        exit: Callable[[], None],
        bell: Callable[[], None] = lambda: None,
    ) -> None:
        """Give the screen the application's redraw, exit and the terminal's bell."""
        self._invalidate = invalidate
        self._exit = exit
        self._bell = bell

    def start(self) -> None:
        """The first question, or the first deal (call inside the running event loop)."""
        self.flow.opponent.attach(self)
        if self.notice:
            self.chat(self.notice)
        if self.resume is not None:
            self._continue(self.resume)
        elif self.offer is not None:
            offer = self.offer
            self.ask(
                yes_no(
                    _("Continue your unfinished game against {name}, at move {number}? [Y/n]").format(
                        name=shown_name(offer.opponent.name), number=len(offer.game.moves) + 1
                    ),
                    "yes",
                    lambda answer: self._continue(offer) if answer == "yes" else self._decline(offer),
                    cancel=None,  # no forgets the game: Ctrl-C leaves it offered
                )
            )
        else:
            self._choose_trump()

    def close(self) -> None:
        """Leave: the game is already saved; drop the tasks and tell the opponent."""
        for task in (self._task, self._hint_task, self._ticker):
            if task is not None:
                task.cancel()
        self.coach.close()
        self.flow.opponent.close()

    def _continue(self, saved: SavedGame) -> None:
        self.offer = self.resume = None
        attached = saved.opponent is self.flow.opponent  # a network opponent continues its own duel
        self._say(self.flow.resume(saved))
        if not attached:
            self.flow.opponent.attach(self)
        self.saver.path = saved.path
        self.trump = SUITS[saved.game.start.trumps[self.flow.me]]
        self._advance()

    def _decline(self, offer: SavedGame) -> None:
        self.offer = None
        self.saver.forget_unfinished()
        self._choose_trump()  # asks, or deals at once (then the deal's words follow)
        self._say(_("The unfinished game stays in your history ({file}).").format(file=offer.path.name))

    def _choose_trump(self) -> None:
        """Ask for the trump suit of the game about to be dealt (unless the command line gave it),
        then deal."""
        if self._fixed_trump and self.trump is not None:
            self._trump_chosen(self.trump)  # given on the command line: also the next "last choice"
            return
        answers = {s.lower(): s for s in SUITS}
        answers |= {suit_text(i): s for i, s in enumerate(SUITS)}
        answers |= {name: s for name, s in zip(SUIT_NAMES, SUITS, strict=True)}
        answers |= {_(name).lower(): s for name, s in zip(SUIT_NAMES, SUITS, strict=True)}
        default = self.last_trump if self.last_trump in tuple(SUITS) else "H"
        shown = " ".join(f"{s} {suit_text(i, self.display.ascii)}" for i, s in enumerate(SUITS))
        if default == self.last_trump:
            prompt = _("Your trump suit? {suits} [Enter: {default}, your last choice]")
        else:
            prompt = _("Your trump suit? {suits} [Enter: {default}]")
        self.ask(Question(prompt.format(suits=shown, default=default), answers, default, self._trump_chosen))

    def _trump_chosen(self, suit: str) -> None:
        self.trump = self.last_trump = suit
        with contextlib.suppress(OSError):
            config.save_config(trump=suit)
        self._deal()

    def _deal(self) -> None:
        number, dealer = self.flow.next_deal()
        assert self.trump is not None
        self._run(self._deal_task(number, dealer, self.trump))

    async def _deal_task(self, number: int, dealer: int | None, trump: str) -> None:
        self._say(_("Dealing…"))
        try:
            deal = await self.flow.opponent.deal(number, dealer, trump)
            self._start_game(deal)
        except Exception as exc:  # a plug-in opponent's failure ends the game, never the app
            self.end(exc)

    def _start_game(self, deal: Deal) -> None:
        text = self.flow.begin(deal, datetime.now(UTC).strftime(RECORD_DATE))
        self.coach.close()  # the analysis of the last game stops: its search would slow the new one
        self.saver.new_game()
        self.line.new_hand()
        if deal.note:  # not in the chat, where it would push the verification code out of sight
            text = f"{text} {deal.note}"
        self._say(text)
        self._save()
        self._advance()

    # ------------------------------------------------------------- the game

    def playable(self) -> set[Card]:
        """The cards of your hand that continue a legal move now (after those picked)."""
        return self.flow.next_cards(self.line.picked)

    def marked_cards(self) -> list[Card]:
        """The cards picked, or those of the move on the move line: the hand shows them marked."""
        return self.line.marked(self.flow.my_hand())

    def _advance(self) -> None:
        game = self.flow.game
        assert game is not None
        if game.result is not None:
            self._finish()
        elif game.position.turn != self.flow.me:
            self._run(self._opponent_move(game, len(game.moves)))
        else:
            self.line.settle(self.flow.my_hand(), self.playable())
        self._invalidate()

    async def _opponent_move(self, game: Game, ply: int) -> None:
        self.thinking_since = time.monotonic()
        self._ticker = asyncio.ensure_future(self._tick())
        try:
            move = await self.flow.opponent.move(game)
        except Exception as exc:  # a plug-in opponent's failure ends the game, never the app
            self.end(exc)
            return
        finally:
            self.thinking_since = None
            self._ticker.cancel()
        if game is not self.flow.game or len(game.moves) != ply:
            return  # undone or abandoned meanwhile
        illegal = self.flow.play_theirs(move)
        if illegal is not None:
            self.end(OpponentLeft(illegal))
            return
        self._say(move_words(game, len(game.moves), self.flow.their_name, self.display.ascii))
        self._save()
        if self.flow.opponent.rings and self.flow.my_turn:
            self._bell()  # your turn: a friend's move may take a while, and you may look elsewhere
        self._advance()

    async def _tick(self) -> None:
        while True:
            await asyncio.sleep(0.2)
            self._invalidate()

    def _finish(self) -> None:
        prompt = self.flow.finish()
        self._save(finished=True)
        self.ask(yes_no(prompt, "yes", self._after_game, time.monotonic() + RESULT_GRACE))

    def _after_game(self, answer: str) -> None:
        if answer == "no":
            self._exit()
            return
        self.flow.next_match()
        self._choose_trump()

    def end(self, reason: Exception) -> None:
        """The opponent cannot go on: end the game, scoring a game awarded to a seat.

        Also what a failing ``deal`` or ``move`` leads to; a pending one is cancelled.
        """
        if self._task is not None and self._task is not asyncio.current_task():
            self._task.cancel()
        if self.flow.game is not None and self.flow.game.result is not None:  # the result stays on the board
            self.flow.left = isinstance(reason, OpponentLeft)
            if self.flow.match_ended:  # no next game or match to offer; why stays in the chat
                self.chat(str(reason))
                self.ask(yes_no(_("The match is over. Quit? [Y/n]"), "yes", self._quit_answer))
            else:
                self._say(str(reason), error=True)
            return
        self._save()
        self.flow.end(reason)  # the table shows why, over the question
        if self.flow.match_ended:
            question = _("The match is over. Quit? [Y/n]")
        else:
            question = _("The game cannot go on. Quit? [Y/n]")
        self.ask(yes_no(question, "yes", self._quit_answer))

    def offer_claim(self, why: str | None) -> None:
        """Ask whether to claim the game while the peer is away (``None``: it is back)."""
        question = self.line.question
        asking = question is not None and question.action == self._claim_answer
        if why is None and asking:
            self.line.clear()
            self._say("")
        elif why is not None and question is None and self.flow.in_progress:
            self.ask(yes_no(_("{why} — claim the game? [y/N]").format(why=why), "no", self._claim_answer))

    def _claim_answer(self, answer: str) -> None:
        if answer == "yes" and not self.flow.opponent.claim():
            self._say(_("{name} is back: the game goes on.").format(name=self.flow.their_name), error=True)

    def _save(self, finished: bool = False) -> None:
        flow = self.flow
        if flow.game is None:
            return
        try:
            self.saver.save(flow.game, flow.match, flow.me, self.flow.opponent.resume_as, finished)
        except OSError as exc:
            self._say(_("Could not save the game: {error}").format(error=exc), error=True)

    # ---------------------------------------------------------- the move line

    def ask(self, question: Question) -> None:
        """Put a question on the move line; the message line over it starts empty, for what is
        said while it waits (a refused answer, a key that does not work now)."""
        self.line.ask(question)
        self._say("")

    def enter(self) -> None:
        """Enter on the move line: answer the question, pick the highlighted card, or play the text."""
        line = self.line
        text = line.buffer.text
        if line.question is not None:
            self._answer(text)
        elif text.startswith('"'):
            self.flow.opponent.say(text[1:].strip())
            line.buffer.reset()
        elif not text and self.flow.only_take():
            self._play(TAKE)
        elif text == line.picked_text():
            hand = self.flow.my_hand()
            if not (self.flow.my_turn and hand):
                self._not_now()
            elif line.highlighted:
                self.pick(hand[min(line.cursor, len(hand) - 1)])
            else:
                self._say(_("Type a move, or choose a card with ←/→ and press Enter (Tab suggests one)."))
        else:
            self.submit(text)
        self._invalidate()

    def _answer(self, text: str) -> None:
        question = self.line.question
        assert question is not None
        answer = question.answer(text)
        if answer is None:
            self._say(question.reminder(), error=True)
        elif answer:
            self.line.clear()
            self._say("")
            question.action(answer)

    def click_pile(self, card: Card) -> None:
        """A click on the pile takes, when taking is allowed (a card held to beat with is put back)."""
        if not self.flow.my_turn:
            self._not_now()
            return
        assert self.flow.game is not None
        if self.flow.game.position.is_legal(TAKE):
            self._play(TAKE)
        else:
            self._say(
                _("You cannot take now: a card of yours beats the top card (forced pick-up)."), error=True
            )

    def submit(self, text: str) -> None:
        """Play the move typed on the move line, or explain in one line why not."""
        if not self.flow.my_turn:
            self._not_now()
            return
        try:
            move = self.line.parse(text, self.flow.my_hand(), self.flow.take_count(), self.flow.moves_from([]))
        except NotationError as exc:
            self._say(str(exc), error=True)
            return
        self._play(move)

    def _play(self, move: Move) -> None:
        refusal = self.flow.refusal(move)
        if refusal is not None:
            self._say(refusal, error=True)
            return
        self.flow.play(move)
        self.line.played()
        game = self.flow.game
        assert game is not None
        self._say(move_words(game, len(game.moves), None, self.display.ascii))
        self._save()
        self._advance()

    def pick(self, card: Card) -> None:
        """Choose a card by arrow keys, digits or mouse: play it, or hold it as the beating card."""
        if not self.flow.my_turn:
            self._not_now()
            return
        assert self.flow.game is not None
        picked = self.line.picked
        chosen = [*picked, card]
        moves = [m for m in self.flow.moves_from(picked) if len(m.cards) > len(picked)]
        complete = [m for m in moves if list(m.cards) == chosen]
        if complete:
            self._play(complete[0])
            return
        if any(list(m.cards[: len(chosen)]) == chosen for m in moves):
            self.line.hold(chosen)
            top = self.flow.game.position.top
            assert top is not None
            self._say(
                _("{card} beats {top}: now the card to lay on it (Esc: choose again).").format(
                    card=self._card(card), top=self._card(top)
                )
            )
            return
        if picked:  # the held card chosen again
            self._say(_("That card cannot be played now."), error=True)
            return
        refusal = self.flow.refusal(Move(card))
        assert refusal is not None  # a legal single card was played above
        self._say(refusal, error=True)

    def unpick(self) -> None:
        """Esc: forget the picked cards, the error and the move line."""
        self.line.picked.clear()
        self.line.buffer.reset()
        self._say("")

    def move_cursor(self, step: int) -> None:
        """Left and right arrows: highlight the previous or next card of your hand."""
        self.line.move_cursor(step, self.flow.my_hand())

    def move_to_playable(self, step: int) -> None:
        """Up and down arrows: highlight the previous or next card that can be played."""
        self.line.move_to_playable(step, self.flow.my_hand(), self.playable())

    # ------------------------------------------------------------------ keys

    def hint(self) -> None:
        """Ask the strongest AI level what it would play; the move goes on the move line."""
        if not self.flow.opponent.hints:
            self._say(
                _("No hints in this duel: the match was set up without them (trumps host --hints allows them)."),
                error=True,
            )
            return
        if not self.flow.my_turn:
            self._not_now()
            return
        assert self.flow.game is not None
        self._hint_task = asyncio.ensure_future(self._hint(self.flow.game))

    async def _hint(self, game: Game) -> None:
        self._say(_("Thinking of a hint…"))
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
            self._say(text.format(why=why, name=self.flow.their_name))

    def analyze(self) -> None:
        """Open the coach's analysis of the game just over (see :mod:`cli.app.coach`)."""
        game = self.flow.game
        if game is None or game.result is None:
            self._say(_("The analysis opens once the game is over."), error=True)
            return
        self.coach.start(game, self.flow.me, self.saver.path, self._invalidate)
        self._invalidate()

    def undo(self) -> None:
        """Take back your last move (and the opponent's reply to it)."""
        if not self.flow.opponent.local:
            self._say(_("Undo is only for games against the AI."), error=True)
            return
        if self.flow.game is None:
            self._not_now()
            return
        if not self.flow.in_progress:
            self._say(_("The game is over: nothing to undo."), error=True)
            return
        if self._task is not None:
            self._task.cancel()
        count = self.flow.undo()
        if not count:
            self._say(_("Nothing to undo yet."), error=True)
            return
        self.line.clear()
        self._say(ngettext("Took back {count} move.", "Took back {count} moves.", count).format(count=count))
        self._save()
        self._advance()

    def new_game(self) -> None:
        """Deal a new game (the current one, if any, is saved as abandoned)."""
        if (
            self.line.question is not None
            and self.flow.game is not None
            and self.flow.game.result is not None
        ):
            self._answer("yes")
            return
        if self.flow.match_ended:  # the duel is over: nothing more can be dealt
            self._say(_("The match is over: Ctrl-Q quits."), error=True)
            return
        if self.flow.in_progress and not self.flow.opponent.local:
            self._say(_("A network game cannot be abandoned for a new one."), error=True)
            return
        if self.flow.in_progress:
            self.ask(yes_no(_("Abandon this game and deal a new one? [y/N]"), "no", self._abandon_answer))
        elif self.line.question is None:
            self._choose_trump()
        else:
            self._not_now()

    def _abandon_answer(self, answer: str) -> None:
        if answer == "yes":
            if self._task is not None:
                self._task.cancel()
            self._save(finished=True)
            path = self.saver.path
            self._say(_("Abandoned game saved as {file}.").format(file=path.name if path else ""))
            self.flow.game = None
            self._choose_trump()
        else:
            self._say("")

    def quit(self) -> None:
        """Leave; mid-game, ask first, saying what quitting costs."""
        question = self.line.question
        if question is not None and question.action == self._quit_answer:
            self._quit_answer("yes")
        elif self.flow.in_progress:
            resumable = self.saver.resumes(self.flow.opponent.resume_as)
            self.ask(yes_no(self.flow.quit_question(resumable), "no", self._quit_answer))
        else:
            self._exit()

    def interrupt(self) -> None:
        """Ctrl-C: cancel the question asked with its :attr:`~cli.app.move_line.Question.cancel`
        answer (no to quitting: Ctrl-C never forfeits), or leave where no answer cancels it (the
        trump suit, the unfinished game offered: nothing is at stake there); with no question,
        what Ctrl-Q does (mid-game it asks first)."""
        question = self.line.question
        if question is None:
            self.quit()
        elif question.cancel is None:
            self._exit()
        else:
            self.line.clear()
            self._say("")
            question.action(question.cancel)

    def _quit_answer(self, answer: str) -> None:
        if answer == "yes":
            self._exit()
        elif self.flow.match_ended:
            self._say(_("The match is over: Ctrl-Q quits."))
        elif self.flow.game is None:
            self._say(_("F5 deals a new game, Ctrl-Q quits."))
        else:
            self._say("")

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
        self._invalidate()

    def scroll_chat(self, lines: int) -> None:
        """PgUp and PgDn: scroll the chat back (``lines`` > 0) or on."""
        self.chats.scroll(lines)
        self._invalidate()

    def status(self, text: str) -> None:
        """Show the connection status in its slot; chat does not overwrite it."""
        self.chats.status = text
        self._invalidate()

    # -------------------------------------------------------------- helpers

    def _run(self, coroutine: Coroutine[None, None, None]) -> None:
        self._task = asyncio.ensure_future(coroutine)

    def explain_no_completion(self) -> None:
        """Tab found nothing to fill in: say why."""
        if self.line.question is not None:
            self._say(self.line.question.reminder(), error=True)
        elif self.flow.my_turn:
            self._say(_("Nothing legal starts like that: Esc clears the line."), error=True)
        else:
            self._not_now()

    def _not_now(self) -> None:
        name = self.flow.their_name
        if self.thinking_since is not None:
            self._say(_("Wait: {name} is thinking.").format(name=name), error=True)
        elif self.flow.game is None or self.flow.game.result is not None:
            self._say(_("No game in play: answer the question below."), error=True)
        else:
            self._say(_("Wait: it is {name}'s turn.").format(name=name), error=True)

    def _cut(self) -> None:
        """More was pasted on the move line than it holds: say what became of the rest."""
        self._say(
            _("The move line holds {count} characters: the rest of what was pasted is left out.").format(
                count=MOVE_LINE_LENGTH
            ),
            error=True,
        )

    def _say(self, text: str, error: bool = False) -> None:
        self.message, self.error = text, error
        self._invalidate()

    def _card(self, card: Card) -> str:
        return card_text(card, self.display.ascii)
