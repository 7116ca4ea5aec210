"""The players' hands on the game screen, each under its rule (the player, their trumps, how
many cards): the opponent's face up, or as card backs when hidden (F4), and yours, numbered,
its playable cards lit, the highlighted and picked ones marked, each card clickable."""

from __future__ import annotations

from functools import partial

from prompt_toolkit.formatted_text import StyleAndTextTuples

from cli.app import move_entry
from cli.app.board import Line, hand_lines, trump_label
from cli.app.cards import count_cards
from cli.app.fragments import fragment_width, rule
from cli.app.keys import key_label
from cli.app.names import shown_name
from cli.app.screen import GameScreen
from cli.app.sizes import terminal_size
from cli.i18n import _


def opponent_rule(screen: GameScreen) -> StyleAndTextTuples:
    """The rule above the opponent's hand: while an unfinished game is offered, its opponent's
    (the one the question names), else this game's."""
    offer = screen.offer
    name = shown_name(offer.opponent.name) if offer is not None else screen.flow.their_name
    return _player_rule(screen, 1 - screen.flow.me, name)


def my_rule(screen: GameScreen) -> StyleAndTextTuples:
    """The rule above your hand."""
    return _player_rule(screen, screen.flow.me, _("You"))


def _player_rule(screen: GameScreen, player: int, name: str) -> StyleAndTextTuples:
    game = screen.flow.game
    label: Line = [("class:rule.label", name)]
    if game is not None:
        label += [("class:muted", " · "), *trump_label(game.start.trumps[player], screen.display.ascii)]
        label.append(("class:muted", f" · {count_cards(len(game.position.hand(player)))}"))
    return rule(label, terminal_size().columns)


def opponent_hand_lines(screen: GameScreen) -> list[Line]:
    """The opponent's cards, or their backs, in rows."""
    game = screen.flow.game
    if game is None:
        return []
    them = 1 - screen.flow.me
    cards = game.position.hand(them)
    if not screen.show_opponent:
        return _backs(len(cards))
    return hand_lines(cards, terminal_size().columns - 1, screen.display.ascii, trump=game.start.trumps[them])


def _backs(count: int) -> list[Line]:
    """A card back for each hidden card, then the note, in as many rows as it takes."""
    per_row = max(1, (terminal_size().columns - 1) // 4)
    rows: list[Line] = [
        [("", " "), ("class:card.back", "░░░")] * min(per_row, count - start)
        for start in range(0, count, per_row)
    ] or [[]]
    note = ("class:muted", "  " + _("hidden: {key} shows it").format(key=key_label("f4")))
    if fragment_width(rows[-1]) + fragment_width([note]) < terminal_size().columns:
        rows[-1].append(note)
    else:
        rows.append([note])
    return rows


def my_hand_lines(screen: GameScreen) -> list[Line]:
    """Your cards in rows, each row over the cards' numbers."""
    flow, line = screen.flow, screen.line
    if flow.game is None:
        return []
    legal = screen.playable() if flow.my_turn else None
    return hand_lines(
        flow.my_hand(),
        terminal_size().columns - 1,
        screen.display.ascii,
        trump=flow.game.start.trumps[flow.me],
        legal=legal,
        cursor=line.cursor if legal and line.highlighted else None,
        picked=screen.marked_cards(),
        numbered=True,
        on_click=partial(move_entry.pick, screen),
    )
