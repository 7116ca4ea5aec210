"""Formatted text for the app's windows: lines of fragments joined, measured, broken between
words and ruled, the note a window too small shows, and the window that shows them."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from prompt_toolkit.application.current import get_app_or_none
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.layout import Dimension, FormattedTextControl, Window

from cli.app.board import Line
from cli.app.sizes import terminal_size
from cli.app.widths import cell_width, close_lines, wrap

T = TypeVar("T")


def once_per_redraw(compute: Callable[[], T]) -> Callable[[], T]:
    """``compute``, run at most once per redraw of the running application and kept until the
    next: the layout asks for the same lines several times in one (a window's height, the rows
    left for the others, then its text). Outside a running application it runs on every call.
    """
    kept: list[tuple[int, T]] = []

    def get() -> T:
        app = get_app_or_none()
        if app is None:
            return compute()
        if not kept or kept[0][0] != app.render_counter:
            kept[:] = [(app.render_counter, compute())]
        return kept[0][1]

    return get


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
