"""The screen: title, the opponent's hand, the pile and history, your hand, the
message and chat/status lines, the move line and the key bar.

The layout only reads the :class:`~cli.app.session.Session`. Below 80x24 it
shows a "window too small" note instead of the board; it never depends on
the size at build time, so resizing is safe at any moment.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from prompt_toolkit.application.current import get_app
from prompt_toolkit.data_structures import Point, Size
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.layout import (
    ConditionalContainer,
    FormattedTextControl,
    HSplit,
    Layout,
    VSplit,
    Window,
)
from prompt_toolkit.layout.controls import BufferControl

from cli.app.board import Line, hand_lines, history_lines, pile_lines, trump_label
from cli.app.cards import card_text, count_cards, suit_text
from cli.app.help import help_lines
from cli.app.keys import COMMAND_KEYS, key_label
from cli.app.session import MY_NAME, Session

MIN_COLUMNS, MIN_ROWS = 80, 24
HISTORY_WIDTH = 27
HISTORY_LINES = 200
"""The most moves the history keeps on screen (it scrolls to the last)."""
_SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"


def terminal_size() -> Size:
    """The size of the running application's terminal."""
    return get_app().output.get_size()


def too_small() -> bool:
    """Whether the terminal is smaller than the board needs."""
    size = terminal_size()
    return size.columns < MIN_COLUMNS or size.rows < MIN_ROWS


def join_lines(lines: list[Line]) -> StyleAndTextTuples:
    """Lines of fragments as one text for a ``FormattedTextControl``."""
    out: StyleAndTextTuples = []
    for i, line in enumerate(lines):
        if i:
            out.append(("", "\n"))
        out += line
    return out


def rule(label: Line, width: int) -> StyleAndTextTuples:
    """A horizontal rule ``width`` cells wide with a label: ``── You · trump ♠ ───``."""
    used = 4 + sum(len(t[1]) for t in label)
    return [("class:rule", "── "), *label, ("class:rule", " " + "─" * max(0, width - used))]


class Board:
    """The fragments of each part of the game screen, read from the session."""

    def __init__(self, session: Session) -> None:
        self.session = session

    @property
    def _ascii(self) -> bool:
        return self.session.display.ascii

    def _them(self) -> int:
        return 1 - self.session.me

    def title(self) -> StyleAndTextTuples:
        s = self.session
        parts: StyleAndTextTuples = [("class:title.name", " Your trumps ")]
        if s.game is not None:
            trumps = s.game.start.trumps
            parts.append(
                (
                    "",
                    f"│ {MY_NAME} {suit_text(trumps[s.me], self._ascii)} vs "
                    f"{s.opponent.name} {suit_text(trumps[self._them()], self._ascii)} ",
                )
            )
        if s.match.games > 1:
            parts.append(("", f"│ Game {s.game_number} of {s.match.games} "))
        parts.append(("", f"│ {s.match.score_text(MY_NAME, s.opponent.name)} "))
        return parts

    def _player_rule(self, player: int, name: str) -> StyleAndTextTuples:
        game = self.session.game
        label: Line = [("class:rule.label", name)]
        if game is not None:
            label += [("class:muted", " · "), *trump_label(game.start.trumps[player], self._ascii)]
            label.append(("class:muted", f" · {count_cards(len(game.position.hand(player)))}"))
        return rule(label, terminal_size().columns)

    def opponent_rule(self) -> StyleAndTextTuples:
        """The rule above the opponent's hand."""
        return self._player_rule(self._them(), self.session.opponent.name)

    def my_rule(self) -> StyleAndTextTuples:
        """The rule above your hand."""
        return self._player_rule(self.session.me, MY_NAME)

    def opponent_hand(self) -> StyleAndTextTuples:
        s = self.session
        if s.game is None:
            return []
        cards = s.game.position.hand(self._them())
        if not s.show_opponent:
            backs: Line = [("", " "), ("class:card.back", "░░░")] * min(len(cards), 8)
            return [*backs, ("class:muted", f"  hidden: {key_label('f4')} shows it")]
        trump = s.game.start.trumps[self._them()]
        return join_lines(hand_lines(cards, terminal_size().columns - 1, self._ascii, trump=trump)[:2])

    def my_hand(self) -> StyleAndTextTuples:
        s = self.session
        if s.game is None:
            return []
        legal = s.legal_cards() if s.my_turn else None
        lines = hand_lines(
            s.my_hand(),
            terminal_size().columns - 1,
            self._ascii,
            trump=s.game.start.trumps[s.me],
            legal=legal,
            cursor=s.cursor if legal else None,
            picked=s.marked_cards(),
            numbered=True,
            on_click=s.pick,
        )
        return join_lines(lines[:4])

    def table(self) -> StyleAndTextTuples:
        """The pile, what a pick-up takes, whose turn, and the result when over."""
        s = self.session
        if s.game is None:
            if s.result:
                note = s.result
            elif s.question is not None:
                note = "Answer below (Enter: the choice in brackets). F1: help."
            else:
                note = "Dealing…"
            return join_lines([[], [("class:muted", f"  {note}")]])
        position = s.game.position
        width = terminal_size().columns - HISTORY_WIDTH - 2
        head: Line = [("class:rule.label", " Pile"), ("class:muted", f"  {count_cards(len(position.pile))}")]
        if position.pile and s.game.result is None:
            head.append(("class:turn", f"   take: {count_cards(position.take_count())}"))
        lines: list[Line] = [head, *pile_lines(position.pile, width, self._ascii, on_click=s.click_pile), []]
        if s.game.result is not None:
            lines.append([("class:result", f" ★ {s.result}")])
            lines.append([("class:muted", f"   Match: {s.match.score_text(MY_NAME, s.opponent.name)}")])
        else:
            lines.append(self._turn())
        return join_lines(lines)

    def _turn(self) -> Line:
        s = self.session
        assert s.game is not None
        position = s.game.position
        if not s.my_turn:
            if s.thinking_since is None:
                return [("class:turn", f" {s.opponent.name} to move.")]
            elapsed = time.monotonic() - s.thinking_since
            spin = _SPINNER[int(elapsed * 5) % len(_SPINNER)]
            return [("class:thinking", f" {spin} {s.opponent.name} is thinking… {elapsed:.0f}s")]
        top = position.top
        if s.picked:
            text = f"Now lay a card on {card_text(s.picked[0], self._ascii)} (Esc: choose again)."
        elif top is None:
            text = "Your turn: lay any card."
        elif position.beaters():
            text = f"Your turn: beat {card_text(top, self._ascii)}, then lay a card on it"
            text += ", or take." if position.rules.pickup == "voluntary" else "."
        else:
            text = f"Nothing beats {card_text(top, self._ascii)}: Enter takes {count_cards(position.take_count())}."
        return [("class:turn.mine", " ▶ " + text)]

    def history(self) -> list[Line]:
        s = self.session
        if s.game is None:
            return []
        names = [s.opponent.name, s.opponent.name]
        names[s.me] = MY_NAME
        return history_lines(s.game, names, HISTORY_LINES, self._ascii)

    def message(self) -> StyleAndTextTuples:
        s = self.session
        if s.question is not None:
            return [("class:question", " " + s.question.prompt)]
        if s.buffer.complete_state is not None:
            return self._choices()
        return [("class:message.error" if s.error else "class:message", " " + s.message)]

    def _choices(self) -> StyleAndTextTuples:
        """The legal moves Tab cycles through, the current one highlighted, as many as fit."""
        state = self.session.buffer.complete_state
        assert state is not None
        index = state.complete_index or 0
        texts = [c.display_text for c in state.completions]
        line: StyleAndTextTuples = [("class:muted", f" Tab {index + 1}/{len(texts)}:")]
        room = terminal_size().columns - 20
        first = max(0, index - 2)
        if first:
            line.append(("class:muted", " …"))
        for i in range(first, len(texts)):
            room -= len(texts[i]) + 3
            if room < 0:
                line.append(("class:muted", " …"))
                break
            line += [("", " "), ("class:choice.current" if i == index else "class:choice", f" {texts[i]} ")]
        return line

    def status(self) -> StyleAndTextTuples:
        return [("class:status", " " + self.session.status)]

    def prompt(self) -> StyleAndTextTuples:
        return [("class:prompt", " answer> " if self.session.question is not None else " move> ")]

    def key_bar(self) -> StyleAndTextTuples:
        bar: StyleAndTextTuples = []
        for command in COMMAND_KEYS:
            bar += [("class:keybar.key", key_label(command.keys[0])), ("class:keybar", f" {command.name}  ")]
        return bar

    def help(self) -> StyleAndTextTuples:
        s = self.session
        lines = help_lines(s.rules)
        rows = terminal_size().rows
        s.help_top = max(0, min(s.help_top, len(lines) - rows))
        shown = lines[s.help_top : s.help_top + rows]
        if s.help_top + rows < len(lines):
            shown[-1] = [("class:muted", "  ↓ more below (↓, PgDn)")]
        return join_lines(shown)

    def small(self) -> StyleAndTextTuples:
        size = terminal_size()
        return [
            (
                "class:small",
                f"Window too small: {size.columns}x{size.rows}.\nYour trumps needs at least "
                f"{MIN_COLUMNS}x{MIN_ROWS}:\nplease enlarge it.\n(Ctrl-Q quits.)",
            )
        ]


def text_window(get: object, height: int | None = None, **options: object) -> Window:
    """A window showing the fragments ``get()`` returns."""
    return Window(FormattedTextControl(get), height=height, **options)  # type: ignore[arg-type]


def history_window(get_lines: Callable[[], list[Line]]) -> HSplit:
    """The move history under its heading, scrolled so that the last move shows."""
    control = FormattedTextControl(
        lambda: join_lines(get_lines()), get_cursor_position=lambda: Point(0, max(0, len(get_lines()) - 1))
    )
    heading = text_window(lambda: [("class:rule.label", " Moves")], 1)
    return HSplit([heading, Window(control)], width=HISTORY_WIDTH)


def create_layout(session: Session) -> Layout:
    """The game screen for ``session``."""
    board = Board(session)
    move_line = Window(BufferControl(session.buffer), height=1)
    game = HSplit(
        [
            text_window(board.title, 1, style="class:title"),
            text_window(board.opponent_rule, 1),
            text_window(board.opponent_hand, 2),
            VSplit(
                [
                    text_window(board.table, wrap_lines=True),
                    Window(width=1, char="│", style="class:rule"),
                    history_window(board.history),
                ]
            ),
            text_window(board.my_rule, 1),
            text_window(board.my_hand, 4),
            text_window(board.message, 1),
            text_window(board.status, 1),
            VSplit([text_window(board.prompt, 1, dont_extend_width=True), move_line]),
            text_window(board.key_bar, 1, style="class:keybar"),
        ]
    )
    small = Condition(too_small)
    helping = Condition(lambda: session.help_open)
    body = HSplit(
        [
            ConditionalContainer(game, ~small & ~helping),
            ConditionalContainer(text_window(board.help), ~small & helping),
            ConditionalContainer(text_window(board.small, wrap_lines=True), small),
        ]
    )
    return Layout(body, focused_element=move_line)
