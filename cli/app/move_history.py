"""The move history right of the table (the game's and the replay's): every move under a
heading, players named short in the usual column and in full in a wide one, scrolled to the
last move; a compact window leaves it out."""

from __future__ import annotations

from collections.abc import Callable

from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.layout import (
    ConditionalContainer,
    Dimension,
    FormattedTextControl,
    HSplit,
    VSplit,
    Window,
)

from cli.app.board import Line, history_lines
from cli.app.fragments import join_lines, text_window
from cli.app.screen import GameScreen
from cli.app.sizes import WIDE_HISTORY_WIDTH, history_width, terminal_size
from cli.app.widths import close_lines
from cli.i18n import _
from engine import Game


def history(screen: GameScreen) -> list[Line]:
    """The lines of the game's moves so far, yours by "You"."""
    flow = screen.flow
    if flow.game is None:
        return []
    names = [flow.their_name, flow.their_name]
    names[flow.me] = _("You")
    return move_log(flow.game, names, screen.display.ascii)


def move_log(game: Game, names: list[str], ascii: bool, upto: int | None = None) -> list[Line]:
    """The move history's lines: players by short names (``AI``) in the usual column, by whole
    names (``AI (hard)``, longer ones) in a wide one; as many as the terminal has rows, since the
    window shows no more (and the layout measures every line it is given, several times a redraw)."""
    rows = terminal_size().rows
    if history_width() >= WIDE_HISTORY_WIDTH:
        return history_lines(game, names, rows, ascii, upto, name_cells=16)
    return history_lines(game, [name.split(" (")[0] for name in names], rows, ascii, upto)


def _cursor_on_last(lines: list[Line]) -> list[Line]:
    """``lines`` with the cursor marked at the start of the last, where the window scrolls to.
    (The mark rides in the text, which the control asks for once a redraw: a separate cursor
    function would build the whole history again each time the layout measures the window.)"""
    if not lines:
        return lines
    return [*lines[:-1], [("[SetCursorPosition]", ""), *lines[-1]]]


def with_history(
    get_table: Callable[[], StyleAndTextTuples],
    get_lines: Callable[[], list[Line]],
    height: Callable[[], Dimension] | None = None,
) -> VSplit:
    """The table ``get_table()`` shows and, right of it when the window is wide enough, the move
    history under its heading, scrolled so that the last move shows; ``height()`` rows (else as
    many as the parts around leave). The widths, and the height when given, are exact, so that
    prompt_toolkit neither measures the texts for them nor hands out the room a column or a row
    at a time (which took most of a redraw)."""
    control = FormattedTextControl(lambda: close_lines(join_lines(_cursor_on_last(get_lines()))))
    heading = text_window(lambda: [("class:rule.label", " " + _("Moves"))], 1)
    column = HSplit([heading, Window(control)], width=lambda: Dimension.exact(history_width()))
    bar = Window(width=1, char="│", style="class:rule")
    table = text_window(get_table, wrap_lines=True, width=lambda: Dimension.exact(_table_columns()))
    return VSplit(
        [table, ConditionalContainer(VSplit([bar, column]), Condition(lambda: history_width() > 0))],
        height=height,
    )


def _table_columns() -> int:
    """The board's columns the move history and its bar leave to the table."""
    history = history_width()
    return terminal_size().columns - (history + 1 if history else 0)
