"""What the player enters as a move on the game screen: typed on the move line (read by
:meth:`~cli.app.move_line.MoveLine.parse`), a card picked with the arrow keys, a digit or the
mouse, a click on the pile; and Enter, which answers the question asked, sends a chat line
or plays. Each is a function of the :class:`~cli.app.screen.GameScreen` that a key, a click
or the move line calls.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cli.app.board import move_words
from cli.app.cards import card_text
from cli.app.move_line import MOVE_LINE_LENGTH
from cli.i18n import _
from engine import TAKE, Card, Move, NotationError

if TYPE_CHECKING:
    from cli.app.screen import GameScreen


def enter(screen: GameScreen) -> None:
    """Enter on the move line: answer the question, pick the highlighted card, or play the text."""
    line, flow = screen.line, screen.flow
    text = line.buffer.text
    if line.question is not None:
        screen.questions.answer(text)
    elif text.startswith('"'):
        flow.opponent.say(text[1:].strip())
        line.buffer.reset()
    elif not text and flow.only_take():
        _play(screen, TAKE)
    elif text == line.picked_text():
        hand = flow.my_hand()
        if not (flow.my_turn and hand):
            screen.not_now()
        elif line.highlighted:
            pick(screen, hand[min(line.cursor, len(hand) - 1)])
        else:
            screen.say(_("Type a move, or choose a card with ←/→ and press Enter (Tab suggests one)."))
    else:
        submit(screen, text)
    screen.invalidate()


def submit(screen: GameScreen, text: str) -> None:
    """Play the move typed on the move line, or explain in one line why not."""
    flow = screen.flow
    if not flow.my_turn:
        screen.not_now()
        return
    try:
        move = screen.line.parse(text, flow.my_hand(), flow.take_count(), flow.moves_from([]))
    except NotationError as exc:
        screen.say(str(exc), error=True)
        return
    _play(screen, move)


def click_pile(screen: GameScreen, card: Card) -> None:
    """A click on the pile takes, when taking is allowed (a card held to beat with is put back)."""
    if not screen.flow.my_turn:
        screen.not_now()
        return
    assert screen.flow.game is not None
    if screen.flow.game.position.is_legal(TAKE):
        _play(screen, TAKE)
    else:
        screen.say(_("You cannot take now: a card of yours beats the top card (forced pick-up)."), error=True)


def pick(screen: GameScreen, card: Card) -> None:
    """Choose a card by arrow keys, digits or mouse: play it, or hold it as the beating card."""
    flow, line = screen.flow, screen.line
    if not flow.my_turn:
        screen.not_now()
        return
    assert flow.game is not None
    picked = line.picked
    chosen = [*picked, card]
    moves = [m for m in flow.moves_from(picked) if len(m.cards) > len(picked)]
    complete = [m for m in moves if list(m.cards) == chosen]
    if complete:
        _play(screen, complete[0])
        return
    if any(list(m.cards[: len(chosen)]) == chosen for m in moves):
        line.hold(chosen)
        top = flow.game.position.top
        assert top is not None
        ascii = screen.display.ascii
        screen.say(
            _("{card} beats {top}: now the card to lay on it (Esc: choose again).").format(
                card=card_text(card, ascii), top=card_text(top, ascii)
            )
        )
        return
    if picked:  # the held card chosen again
        screen.say(_("That card cannot be played now."), error=True)
        return
    refusal = flow.refusal(Move(card))
    assert refusal is not None  # a legal single card was played above
    screen.say(refusal, error=True)


def unpick(screen: GameScreen) -> None:
    """Esc: forget the picked cards, the error and the move line."""
    screen.line.picked.clear()
    screen.line.buffer.reset()
    screen.say("")


def move_cursor(screen: GameScreen, step: int) -> None:
    """Left and right arrows: highlight the previous or next card of your hand."""
    screen.line.move_cursor(step, screen.flow.my_hand())


def move_to_playable(screen: GameScreen, step: int) -> None:
    """Up and down arrows: highlight the previous or next card that can be played."""
    screen.line.move_to_playable(step, screen.flow.my_hand(), screen.playable())


def explain_no_completion(screen: GameScreen) -> None:
    """Tab found nothing to fill in: say why."""
    if screen.line.question is not None:
        screen.say(screen.line.question.reminder(), error=True)
    elif screen.flow.my_turn:
        screen.say(_("Nothing legal starts like that: Esc clears the line."), error=True)
    else:
        screen.not_now()


def cut(screen: GameScreen) -> None:
    """More was pasted on the move line than it holds: say what became of the rest."""
    screen.say(
        _("The move line holds {count} characters: the rest of what was pasted is left out.").format(
            count=MOVE_LINE_LENGTH
        ),
        error=True,
    )


def _play(screen: GameScreen, move: Move) -> None:
    refusal = screen.flow.refusal(move)
    if refusal is not None:
        screen.say(refusal, error=True)
        return
    screen.flow.play(move)
    screen.line.played()
    game = screen.flow.game
    assert game is not None
    screen.say(move_words(game, len(game.moves), None, screen.display.ascii))
    screen.save()
    screen.turns.advance()
