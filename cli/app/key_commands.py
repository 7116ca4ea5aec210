"""What each command key of the game screen does (the keys themselves are
:data:`cli.app.keys.COMMAND_KEYS`): help, a hint, undo, the opponent's hand, a new game, the
analysis, quitting, Ctrl-C and scrolling the chat. Each is a function of the
:class:`~cli.app.screen.GameScreen` that says on its message line why it does nothing, when it
does nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
from functools import partial

from cli import config
from cli.app.ai_opponent import suggest
from cli.app.cards import move_text
from cli.app.move_line import yes_no
from cli.app.screen import GameScreen
from cli.coach_words import advice_words
from cli.i18n import _, ngettext
from engine import Game


def toggle_help(screen: GameScreen) -> None:
    """Open or close the help screen."""
    screen.help.toggle()


def scroll_chat(screen: GameScreen, lines: int) -> None:
    """PgUp and PgDn: scroll the chat back (``lines`` > 0) or on."""
    screen.chats.scroll(lines)
    screen.invalidate()


def hint(screen: GameScreen) -> None:
    """Ask the strongest AI level what it would play; the move goes on the move line."""
    if not screen.flow.opponent.hints:
        screen.say(
            _("No hints in this duel: the match was set up without them (trumps host --hints allows them)."),
            error=True,
        )
        return
    if not screen.flow.my_turn:
        screen.not_now()
        return
    assert screen.flow.game is not None
    screen.hint_task = asyncio.ensure_future(_hint(screen, screen.flow.game))


async def _hint(screen: GameScreen, game: Game) -> None:
    flow, ascii = screen.flow, screen.display.ascii
    screen.say(_("Thinking of a hint…"))
    position = game.position
    advice = await asyncio.get_running_loop().run_in_executor(None, suggest, game)
    if game is flow.game and game.position is position:  # nothing played or undone meanwhile
        screen.line.put(move_text(advice.move, ascii))
        flow.opponent.hinted()
        why = advice_words(advice, lambda move: move_text(move, ascii), flow.their_name)
        if flow.opponent.local:
            text = _("Hint: {why}. Enter plays it.")
        else:
            text = _("Hint: {why}. Enter plays it ({name} sees that your move followed a hint).")
        screen.say(text.format(why=why, name=flow.their_name))


def undo(screen: GameScreen) -> None:
    """Take back your last move (and the opponent's reply to it)."""
    flow = screen.flow
    if not flow.opponent.local:
        screen.say(_("Undo is only for games against the AI."), error=True)
        return
    if flow.game is None:
        screen.not_now()
        return
    if not flow.in_progress:
        screen.say(_("The game is over: nothing to undo."), error=True)
        return
    screen.turns.cancel()
    count = flow.undo()
    if not count:
        screen.say(_("Nothing to undo yet."), error=True)
        return
    screen.line.clear()
    screen.say(ngettext("Took back {count} move.", "Took back {count} moves.", count).format(count=count))
    screen.save()
    screen.turns.advance()


def toggle_opponent(screen: GameScreen) -> None:
    """Hide or show the opponent's hand."""
    screen.show_opponent = not screen.show_opponent
    with contextlib.suppress(OSError):
        config.save_config(show_opponent="yes" if screen.show_opponent else "no")


def new_game(screen: GameScreen) -> None:
    """Deal a new game (the current one, if any, is saved as abandoned)."""
    flow = screen.flow
    if screen.line.question is not None and flow.game is not None and flow.game.result is not None:
        screen.questions.answer("yes")
        return
    if flow.match_ended:  # the duel is over: nothing more can be dealt
        screen.say(_("The match is over: Ctrl-Q quits."), error=True)
        return
    if flow.in_progress and not flow.opponent.local:
        screen.say(_("A network game cannot be abandoned for a new one."), error=True)
        return
    if flow.in_progress:
        screen.ask(yes_no(_("Abandon this game and deal a new one? [y/N]"), "no", partial(_abandon, screen)))
    elif screen.line.question is None:
        screen.turns.choose_trump()
    else:
        screen.not_now()


def _abandon(screen: GameScreen, answer: str) -> None:
    if answer == "yes":
        screen.turns.cancel()
        screen.save(finished=True)
        path = screen.saver.path
        screen.say(_("Abandoned game saved as {file}.").format(file=path.name if path else ""))
        screen.flow.game = None
        screen.turns.choose_trump()
    else:
        screen.say("")


def analyze(screen: GameScreen) -> None:
    """Open the coach's analysis of the game just over (see :mod:`cli.app.coach`)."""
    game = screen.flow.game
    if game is None or game.result is None:
        screen.say(_("The analysis opens once the game is over."), error=True)
        return
    screen.coach.start(game, screen.flow.me, screen.saver.path, screen.invalidate)
    screen.invalidate()


def quit(screen: GameScreen) -> None:
    """Leave; mid-game, ask first, saying what quitting costs."""
    questions = screen.questions
    if questions.quitting:
        questions.quit_answer("yes")
    elif screen.flow.in_progress:
        resumable = screen.saver.resumes(screen.flow.opponent.resume_as)
        questions.ask_to_quit(screen.flow.quit_question(resumable), "no")
    else:
        screen.exit()


def interrupt(screen: GameScreen) -> None:
    """Ctrl-C: cancel the question asked with its :attr:`~cli.app.move_line.Question.cancel`
    answer (no to quitting: Ctrl-C never forfeits), or leave where no answer cancels it (the
    trump suit, the unfinished game offered: nothing is at stake there); with no question,
    what Ctrl-Q does (mid-game it asks first)."""
    question = screen.line.question
    if question is None:
        quit(screen)
    elif question.cancel is None:
        screen.exit()
    else:
        screen.questions.cancel(question)
