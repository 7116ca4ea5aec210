"""The table of the game screen: the pile and what a pick-up takes, whose turn it is and what
to do (the opponent's thinking time spinning), or how the game ended and the match's score."""

from __future__ import annotations

import time
from functools import partial

from prompt_toolkit.formatted_text import StyleAndTextTuples

from cli.app import move_entry
from cli.app.board import Line, pile_heading, pile_lines
from cli.app.cards import card_text, count_cards
from cli.app.fragments import join_lines, wrapped
from cli.app.screen import GameScreen
from cli.app.sizes import table_width
from cli.i18n import _
from engine import TAKE

_SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"


def table(screen: GameScreen, rows: int) -> StyleAndTextTuples:
    """The pile, what a pick-up takes, whose turn, and the result when over, in ``rows`` rows
    (:func:`cli.app.layout.rows`) or more, when even the shortest table takes more."""
    flow = screen.flow
    width = table_width()
    if flow.game is None:
        if flow.result:  # the game ended early
            return join_lines([[], *_result(screen, width)])
        if screen.line.question is not None:
            note = _("Answer below (Enter: the choice in brackets). F1: help.")
        else:
            note = _("Dealing…")
        return join_lines([[], *wrapped("class:muted", "  ", note, width)])
    position = flow.game.position
    head = pile_heading(len(position.pile))
    if position.pile and flow.game.result is None:
        take = _("take: {cards}").format(cards=count_cards(position.take_count()))
        head.append(("class:turn", "   " + take))
    on_click = partial(move_entry.click_pile, screen)
    pile, mark = pile_lines(position.pile, width, screen.display.ascii, on_click=on_click)
    if flow.game.result is not None:
        below = _result(screen, width)
    else:
        style, sign, text = _turn(screen)
        below = wrapped(style, sign, text, width)
    # a low window: the gap goes first, then the mark under the top card
    between: list[Line] = [mark, []][: max(0, rows - 2 - len(below))]
    return join_lines([head, pile, *between, *below])


def _result(screen: GameScreen, width: int) -> list[Line]:
    """How the game ended, and the match score once a game has counted."""
    flow = screen.flow
    lines = wrapped("class:result", " ★ ", flow.result, width)
    if flow.match.played or flow.match.matches:
        score = flow.match.headline(_("You"), flow.their_name)
        if flow.match_ended and flow.match.games > 1:
            text = flow.match.ended_text(score, flow.their_name)
        elif flow.match.games > 1:
            text = _("Match: {score}").format(score=score)
        else:
            text = _("Score: {score}").format(score=score)
        lines += wrapped("class:muted", "   ", text, width)
    return lines


def _turn(screen: GameScreen) -> tuple[str, str, str]:
    """Whose turn and what to do: the style, a mark and the words."""
    flow, ascii = screen.flow, screen.display.ascii
    assert flow.game is not None
    position = flow.game.position
    if not flow.my_turn:
        since = screen.turns.thinking_since
        if since is None:
            return "class:turn", " ", _("{name} to move.").format(name=flow.their_name)
        elapsed = time.monotonic() - since
        spin = _SPINNER[int(elapsed * 5) % len(_SPINNER)]
        thinking = _("{name} is thinking… {seconds}s").format(name=flow.their_name, seconds=int(elapsed))
        return "class:thinking", f" {spin} ", thinking
    top = position.top
    if screen.line.picked:
        text = _("Now lay a card on {card} (Esc: choose again).").format(
            card=card_text(screen.line.picked[0], ascii)
        )
    elif top is None:
        text = _("Your turn: lay any card.")
    elif not position.beaters():
        text = _("Nothing beats {card}: Enter takes {cards}.").format(
            card=card_text(top, ascii), cards=count_cards(position.take_count())
        )
    elif position.is_legal(TAKE):
        text = _("Your turn: beat {card}, then lay a card on it, or take.").format(card=card_text(top, ascii))
    else:
        text = _("Your turn: beat {card}, then lay a card on it.").format(card=card_text(top, ascii))
    return "class:turn.mine", " ▶ ", text
