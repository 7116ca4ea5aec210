"""Formatted text for the app's windows: lines of fragments joined, measured, broken between
words and ruled, the note a window too small shows, and the window that shows them."""

from __future__ import annotations

from collections.abc import Callable

from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.layout import Dimension, FormattedTextControl, Window

from cli.app.board import Line
from cli.app.sizes import terminal_size
from cli.app.widths import cell_width, close_lines, wrap


def join_lines(lines: list[Line]) -> StyleAndTextTuples:
    """Lines of fragments as one text for a ``FormattedTextControl``."""
    out: StyleAndTextTuples = []
    for i, line in enumerate(lines):
        if i:
            out.append(("", "\n"))
        out += line
    return out


def fragment_width(fragments: StyleAndTextTuples) -> int:
    """How many terminal cells ``fragments`` take (see :mod:`cli.app.widths`)."""
    return sum(cell_width(t[1]) for t in fragments)


def rule(label: Line, width: int) -> StyleAndTextTuples:
    """A horizontal rule ``width`` cells wide with a label: ``── You · trump ♠ ───``."""
    used = 4 + fragment_width(label)
    return [("class:rule", "── "), *label, ("class:rule", " " + "─" * max(0, width - used))]


def wrapped(style: str, mark: str, text: str, width: int) -> list[Line]:
    """``text`` after ``mark`` in lines of ``width`` cells broken between words, later lines
    indented under the first."""
    lines = wrap(text, width - cell_width(mark) - 1)
    indent = " " * cell_width(mark)
    return [[(style, (mark if i == 0 else indent) + line)] for i, line in enumerate(lines)]


def small_note(text: str) -> StyleAndTextTuples:
    """The note a window too small shows instead of the board: ``text``'s lines broken between
    words at the window's width (however narrow it is)."""
    width = terminal_size().columns
    lines = [row for line in text.split("\n") for row in wrap(line, width) or [""]]
    return [("class:small", "\n".join(lines))]


def text_window(
    get: Callable[[], StyleAndTextTuples],
    height: int | Dimension | Callable[[], Dimension] | None = None,
    **options: object,
) -> Window:
    """A window showing the fragments ``get()`` returns (lines closed: :func:`~cli.app.widths.close_lines`)."""
    return Window(FormattedTextControl(lambda: close_lines(get())), height=height, **options)  # type: ignore[arg-type]
