"""The window and the board in it: the smallest window the board fits, the largest board (a
larger window shows it in its middle), and the widths and rows its parts get at a size.

Everything here is read at drawing time, never when the layout is built, so that resizing
is safe at any moment.
"""

from __future__ import annotations

from collections.abc import Callable

from prompt_toolkit.application.current import get_app
from prompt_toolkit.data_structures import Size
from prompt_toolkit.layout import Container, Dimension, HSplit, VSplit, Window

MIN_COLUMNS, MIN_ROWS = 60, 20
"""The smallest window the board fits (the compact layout: no move history)."""
FULL_COLUMNS, FULL_ROWS = 80, 24
"""The window from which the move history shows."""
HISTORY_WIDTH = 27
WIDE_COLUMNS, WIDE_HISTORY_WIDTH = 110, 40
"""From this many columns the move history is wider and names players in full."""
MOST_CHAT_LINES = 6
BOARD_COLUMNS, BOARD_ROWS = 120, 40
"""The largest board: a larger window shows it in its middle (a wider one spread the table and
the move history apart, with rows of nothing between)."""


def window_size() -> Size:
    """The size of the running application's terminal."""
    return get_app().output.get_size()


def terminal_size() -> Size:
    """The size of the board: the terminal's, up to :data:`BOARD_COLUMNS` x :data:`BOARD_ROWS`."""
    size = window_size()
    return Size(rows=min(size.rows, BOARD_ROWS), columns=min(size.columns, BOARD_COLUMNS))


def too_small() -> bool:
    """Whether the terminal is smaller than the board needs."""
    size = window_size()
    return size.columns < MIN_COLUMNS or size.rows < MIN_ROWS


def centred(body: Container) -> Container:
    """``body`` in the middle of a window larger than the board, as large as the board."""

    def margin(room: Callable[[], int]) -> Callable[[], Dimension]:
        return lambda: Dimension.exact(max(0, room()) // 2)

    spare_columns = margin(lambda: window_size().columns - terminal_size().columns)
    spare_rows = margin(lambda: window_size().rows - terminal_size().rows)
    board = HSplit([body], height=lambda: Dimension.exact(terminal_size().rows))
    column = HSplit(
        [Window(height=spare_rows), board, Window()], width=lambda: Dimension.exact(terminal_size().columns)
    )
    return VSplit([Window(width=spare_columns), column, Window()])


def history_width() -> int:
    """The move history's columns: none in a compact window, more in a wide one."""
    columns = terminal_size().columns
    if columns < FULL_COLUMNS:
        return 0
    return WIDE_HISTORY_WIDTH if columns >= WIDE_COLUMNS else HISTORY_WIDTH


def table_width() -> int:
    """The columns left of the move history (the pile, whose turn, the result)."""
    history = history_width()
    return terminal_size().columns - (history + 2 if history else 0)


def chat_height() -> int:
    """Chat lines shown when there is room: one at 20 rows, one more for every two rows beyond
    (three at 80x24), at most :data:`MOST_CHAT_LINES`."""
    return min(MOST_CHAT_LINES, 1 + max(0, terminal_size().rows - MIN_ROWS) // 2)
