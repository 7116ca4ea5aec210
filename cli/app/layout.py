"""The screen: title, the opponent's hand, the pile and history, your hand, the
message line, the connection status (when there is one), the chat, the move
line and the key bar.

The layout only reads the :class:`~cli.app.screen.GameScreen`. From 80x24 it
shows everything; narrower (down to 60 columns) it leaves out the move history,
lower (down to 20 rows) the pile gets fewer lines; below 60x20 it shows a
"window too small" note instead of the board. Larger windows get a wider move
history and more chat lines, up to :data:`BOARD_COLUMNS` x :data:`BOARD_ROWS`,
beyond which the board stands in the middle of the window. Messages, the
connection status and the chat are broken between words, never cut: the rows
they need are taken from the table (:meth:`Board.rows`). It never depends on the
size at build time, so resizing is safe at any moment.
"""

from __future__ import annotations

from functools import partial
from typing import NamedTuple

from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.layout import (
    ConditionalContainer,
    Dimension,
    HSplit,
    Layout,
    VSplit,
    Window,
)
from prompt_toolkit.layout.controls import BufferControl

from cli.app.bars import bar_keys, key_bar_lines, key_bar_window, prompt, title
from cli.app.board import Line
from cli.app.fragments import join_lines, once_per_redraw, small_note, text_window, wrapped
from cli.app.hands_view import my_hand_lines, my_rule, opponent_hand_lines, opponent_rule
from cli.app.help import help_lines, help_title
from cli.app.move_history import history, with_history
from cli.app.screen import GameScreen
from cli.app.sizes import (
    MIN_COLUMNS,
    MIN_ROWS,
    chat_height,
    terminal_size,
    too_small,
)
from cli.app.table_view import table
from cli.app.widths import CloseLines, cell_width, wrap
from cli.cells import fit
from cli.i18n import _, ngettext
from cli.printable import printable

TABLE_ROWS = 3
"""The table's rows that messages and the chat never take: the pile's heading and cards, and
whose turn it is (or the result)."""


class Rows(NamedTuple):
    """The rows of the parts of the game screen that share what the fixed parts leave."""

    message: int
    connection: int
    chat: int
    table: int


class Board:
    """The fragments of each part of the game screen, read from the screen."""

    def __init__(self, screen: GameScreen) -> None:
        self.screen = screen
        # asked for several times a redraw (by the rows' sharing, each window's height, its text)
        self.my_hand_lines = once_per_redraw(partial(my_hand_lines, screen))
        self.opponent_hand_lines = once_per_redraw(partial(opponent_hand_lines, screen))
        self.rows = once_per_redraw(self._rows)

    @property
    def _ascii(self) -> bool:
        return self.screen.display.ascii

    def _them(self) -> int:
        return 1 - self.screen.flow.me

    def message(self) -> StyleAndTextTuples:
        """The message line: the Tab choices, or the last message broken between words, and under
        it the question being asked."""
        s = self.screen
        if s.line.buffer.complete_state is not None and s.line.question is None:
            return self._choices()
        return join_lines(self._message_lines()[-self.rows().message :])

    def message_rows(self) -> Dimension:
        """As many rows as the message and the question take (:meth:`rows`)."""
        return Dimension.exact(self.rows().message)

    def _message_lines(self) -> list[Line]:
        """The message's lines, then the question's, whole."""
        s = self.screen
        width = terminal_size().columns - 2
        style = "class:message.error" if s.error else "class:message"
        said: list[Line] = [[(style, " " + printable(line))] for line in wrap(s.message, width)]  # it may quote the peer
        if s.line.question is None:
            return said or [[]]
        asked: list[Line] = [[("class:question", " " + printable(line))] for line in wrap(s.line.question.prompt, width)]
        return said + asked

    def my_hand(self) -> StyleAndTextTuples:
        """Your cards, with their numbers under them."""
        return join_lines(self.my_hand_lines())

    def my_height(self) -> Dimension:
        """The rows your hand takes: two (cards and numbers) for each row of cards, at least four."""
        return Dimension.exact(max(4, len(self.my_hand_lines())))

    def opponent_hand(self) -> StyleAndTextTuples:
        """The opponent's cards, or their backs."""
        return join_lines(self.opponent_hand_lines())

    def opponent_height(self) -> Dimension:
        """The rows the opponent's hand takes (two for 18 cards at 80 columns)."""
        return Dimension.exact(max(2, len(self.opponent_hand_lines())))

    def _rows(self) -> Rows:
        """How the rows that the board's fixed parts leave are shared: the message and the
        question first, then the connection status, then the chat (its newest line first, then up
        to :func:`chat_height` lines), then the table, which keeps :data:`TABLE_ROWS` whatever
        comes; each gets what it needs while rows are left, so that nothing is cut short but in
        a window too low for all of it."""
        size = terminal_size()
        fixed = 4 + self.opponent_height().preferred + self.my_height().preferred  # the title, 2 rules, the move line
        fixed += len(key_bar_lines(bar_keys(self.screen)))
        left = max(0, size.rows - fixed - TABLE_ROWS)
        message = min(len(self._message_lines()), max(1, left - 1))
        left -= message
        connection = min(len(self._connection_lines()), left - 1) if self.screen.chats.status else 0
        left -= connection
        newest, all_rows = self._chat_wrapped()
        chat = max(1, min(left, max(newest, all_rows)))
        return Rows(message, connection, chat, size.rows - fixed - message - connection - chat)

    def _chat_wrapped(self) -> tuple[int, int]:
        """The rows the chat view's newest line takes, and those of the lines the chat shows when
        there is room (:func:`chat_height`)."""
        width = terminal_size().columns - 2
        shown = self.screen.chats.last(chat_height())
        rows = [len(wrap(printable(text), width)) or 1 for text in shown] or [1]
        return rows[-1], sum(rows)

    def _choices(self) -> StyleAndTextTuples:
        """The legal moves Tab cycles through, the current one highlighted, as many as fit."""
        state = self.screen.line.buffer.complete_state
        assert state is not None
        index = state.complete_index or 0
        texts = [c.display_text for c in state.completions]
        line: StyleAndTextTuples = [("class:muted", f" Tab {index + 1}/{len(texts)}:")]
        room = terminal_size().columns - 20
        first = max(0, index - 2)
        if first:
            line.append(("class:muted", " …"))
        for i in range(first, len(texts)):
            room -= cell_width(texts[i]) + 3
            if room < 0:
                line.append(("class:muted", " …"))
                break
            line += [("", " "), ("class:choice.current" if i == index else "class:choice", f" {texts[i]} ")]
        return line

    def chat(self) -> StyleAndTextTuples:
        """The end of the chat (or the stretch scrolled back to), broken between words; the newest
        line shown bright, older ones dimmer; scrolled back, a note on the newest row says so."""
        return join_lines(self._chat_rows())

    def chat_rows(self) -> Dimension:
        """The rows of the chat (:meth:`rows`)."""
        return Dimension.exact(self.rows().chat)

    def _chat_rows(self) -> list[Line]:
        chats, height = self.screen.chats, self.rows().chat
        width = terminal_size().columns - 2
        shown = [printable(text) for text in chats.last(max(height, chat_height()))]  # the peer's words
        rows: list[Line] = []
        for i, text in enumerate(shown):
            style = "class:chat" if i == len(shown) - 1 else "class:chat.old"
            rows += [[(style, " " + line)] for line in wrap(text, width) or [""]]
        rows = rows[-height:] or [[]]
        if chats.back:
            note = "  " + ngettext("↓ {count} newer line: PgDn", "↓ {count} newer lines: PgDn", chats.back)
            note = note.format(count=chats.back)
            style, text = rows[-1][0][:2] if rows[-1] else ("", "")
            room = terminal_size().columns - cell_width(note)
            rows[-1] = [(style, fit(text, room)), ("class:muted", note)]
        return rows

    def connection(self) -> StyleAndTextTuples:
        """The connection status slot (shown only when there is something to report)."""
        return join_lines(self._connection_lines()[: max(1, self.rows().connection)])

    def connection_height(self) -> Dimension:
        """The status's rows (:meth:`rows`)."""
        return Dimension.exact(max(1, self.rows().connection))

    def table_height(self) -> Dimension:
        """The rows the other parts leave to the table and the move history: given exactly, so
        that prompt_toolkit neither measures their text nor hands the rows out one at a time."""
        rows = self.rows()
        shown = self.connection_height().preferred if self.screen.chats.status else 0
        return Dimension.exact(max(0, rows.table + rows.connection - shown))

    def _connection_lines(self) -> list[Line]:
        status = printable(self.screen.chats.status)  # it names the peer
        return wrapped("class:connection", " ⚠ ", status, terminal_size().columns)

    def help(self) -> StyleAndTextTuples:
        """The help's title, which stays, over the help text scrolled to ``help.top``."""
        s = self.screen
        size = terminal_size()
        title = help_title(size.columns - 1)
        lines = help_lines(s.flow.rules, size.columns)
        rows = max(1, size.rows - len(title))
        s.help.top = max(0, min(s.help.top, len(lines) - rows))
        shown = lines[s.help.top : s.help.top + rows]
        if s.help.top + rows < len(lines):
            shown[-1] = [("class:muted", "  " + _("↓ more below (↓, PgDn)"))]
        return join_lines(title + shown)

    def small(self) -> StyleAndTextTuples:
        size = terminal_size()
        return small_note(
            _(
                "Window too small: {columns}x{rows}.\nYour trumps needs at least {min_columns}x{min_rows}:\n"
                "please enlarge it.\n(Ctrl-Q quits.)"
            ).format(columns=size.columns, rows=size.rows, min_columns=MIN_COLUMNS, min_rows=MIN_ROWS)
        )


def create_layout(screen: GameScreen) -> Layout:
    """The game screen for ``screen``."""
    board = Board(screen)
    asking = text_window(lambda: prompt(screen), 1, dont_extend_width=True)

    def line_width() -> Dimension:  # the rest of the row, at once rather than a cell at a time
        columns = terminal_size().columns
        return Dimension(min=max(0, columns - asking.preferred_width(columns).preferred))

    move_line = Window(BufferControl(screen.line.buffer, input_processors=[CloseLines()]), line_width, 1)
    game = HSplit(
        [
            text_window(lambda: title(screen), 1, style="class:title"),
            text_window(lambda: opponent_rule(screen), 1),
            text_window(board.opponent_hand, board.opponent_height),
            with_history(
                lambda: table(screen, board.rows().table),
                lambda: history(screen),
                board.table_height,
            ),
            text_window(lambda: my_rule(screen), 1),
            text_window(board.my_hand, board.my_height),
            text_window(board.message, board.message_rows, wrap_lines=True),
            ConditionalContainer(
                text_window(board.connection, board.connection_height),
                Condition(lambda: bool(screen.chats.status)),
            ),
            text_window(board.chat, board.chat_rows),
            VSplit([asking, move_line]),
            key_bar_window(lambda: bar_keys(screen)),
        ]
    )
    small = Condition(too_small)
    helping = Condition(lambda: screen.help.open)
    body = HSplit(
        [
            ConditionalContainer(game, ~small & ~helping),
            ConditionalContainer(text_window(board.help), ~small & helping),
            ConditionalContainer(text_window(board.small, wrap_lines=True), small),
        ]
    )
    return Layout(body, focused_element=move_line)
