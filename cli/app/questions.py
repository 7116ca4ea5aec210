"""The questions the game screen asks on the move line, and what each answer does: the trump
suit, the unfinished game offered, the next game after a result (Enter does not answer it at
once: :data:`RESULT_GRACE`), quitting, and claiming a game while the peer is away.

The questions themselves are :class:`~cli.app.move_line.Question` objects; the move line holds
the one being asked.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from cli.app.cards import SUIT_NAMES, suit_text
from cli.app.move_line import Question, yes_no
from cli.app.names import shown_name
from cli.app.resume import SavedGame
from cli.i18n import _
from engine.cards import SUITS

if TYPE_CHECKING:
    from cli.app.screen import GameScreen

RESULT_GRACE = 0.7
"""Seconds after a game ends during which Enter does not yet start the next one,
so that a player who was typing fast still sees the result."""


def trump_question(last: str | None, ascii: bool, action: Callable[[str], None]) -> Question:
    """Which trump suit: a suit's letter, symbol or name (in English or the language in use);
    Enter chooses ``last``, the suit chosen last time, or hearts."""
    answers = {s.lower(): s for s in SUITS}
    answers |= {suit_text(i): s for i, s in enumerate(SUITS)}
    answers |= {name: s for name, s in zip(SUIT_NAMES, SUITS, strict=True)}
    answers |= {_(name).lower(): s for name, s in zip(SUIT_NAMES, SUITS, strict=True)}
    default = last if last in tuple(SUITS) else "H"
    shown = " ".join(f"{s} {suit_text(i, ascii)}" for i, s in enumerate(SUITS))
    if default == last:
        prompt = _("Your trump suit? {suits} [Enter: {default}, your last choice]")
    else:
        prompt = _("Your trump suit? {suits} [Enter: {default}]")
    return Question(prompt.format(suits=shown, default=default), answers, default, action)


class Questions:
    """Asking the game screen's questions, and answering them."""

    def __init__(self, screen: GameScreen) -> None:
        self.screen = screen

    def answer(self, text: str) -> None:
        """Enter on a question: its answer's action, or a reminder of the answers."""
        s = self.screen
        question = s.line.question
        assert question is not None
        answer = question.answer(text)
        if answer is None:
            s.say(question.reminder(), error=True)
        elif answer:
            s.line.clear()
            s.say("")
            question.action(answer)

    def cancel(self, question: Question) -> None:
        """Ctrl-C on ``question``: its :attr:`~cli.app.move_line.Question.cancel` answer."""
        assert question.cancel is not None
        self.screen.line.clear()
        self.screen.say("")
        question.action(question.cancel)

    # ------------------------------------------------------- the unfinished game

    def offer_unfinished(self, offer: SavedGame) -> None:
        """Ask whether to continue ``offer``, the game left unfinished last time."""
        prompt = _("Continue your unfinished game against {name}, at move {number}? [Y/n]").format(
            name=shown_name(offer.opponent.name), number=len(offer.game.moves) + 1
        )
        turns = self.screen.turns
        self.screen.ask(
            yes_no(
                prompt,
                "yes",
                lambda answer: turns.continue_game(offer) if answer == "yes" else self._decline(offer),
                cancel=None,  # no forgets the game: Ctrl-C leaves it offered
            )
        )

    def _decline(self, offer: SavedGame) -> None:
        s = self.screen
        s.offer = None
        s.saver.forget_unfinished()
        s.turns.choose_trump()  # asks, or deals at once (then the deal's words follow)
        s.say(_("The unfinished game stays in your history ({file}).").format(file=offer.path.name))

    # -------------------------------------------------------------- the next game

    def after_result(self, prompt: str) -> None:
        """Ask ``prompt``, whether to play on after a game's result (no quits)."""
        self.screen.ask(yes_no(prompt, "yes", self._after_result, time.monotonic() + RESULT_GRACE))

    def _after_result(self, answer: str) -> None:
        if answer == "no":
            self.screen.exit()
            return
        self.screen.flow.next_match()
        self.screen.turns.choose_trump()

    # ------------------------------------------------------------------ quitting

    def ask_to_quit(self, prompt: str, default: str) -> None:
        """Ask ``prompt``, whether to quit (``default``: ``"yes"`` or ``"no"``)."""
        self.screen.ask(yes_no(prompt, default, self.quit_answer))

    @property
    def quitting(self) -> bool:
        """Whether the question asked is whether to quit."""
        question = self.screen.line.question
        return question is not None and question.action == self.quit_answer

    def quit_answer(self, answer: str) -> None:
        """Quit on a yes; else say what is left to do."""
        s = self.screen
        if answer == "yes":
            s.exit()
        elif s.flow.match_ended:
            s.say(_("The match is over: Ctrl-Q quits."))
        elif s.flow.game is None:
            s.say(_("F5 deals a new game, Ctrl-Q quits."))
        else:
            s.say("")

    # ------------------------------------------------------------------ claiming

    def offer_claim(self, why: str | None) -> None:
        """Ask whether to claim the game while the peer is away (``None``: it is back)."""
        s = self.screen
        question = s.line.question
        asking = question is not None and question.action == self._claim_answer
        if why is None and asking:
            s.line.clear()
            s.say("")
        elif why is not None and question is None and s.flow.in_progress:
            s.ask(yes_no(_("{why} — claim the game? [y/N]").format(why=why), "no", self._claim_answer))

    def _claim_answer(self, answer: str) -> None:
        s = self.screen
        if answer == "yes" and not s.flow.opponent.claim():
            s.say(_("{name} is back: the game goes on.").format(name=s.flow.their_name), error=True)
