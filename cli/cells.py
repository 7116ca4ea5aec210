"""Text measured, cut and padded in terminal cells, for plain commands (no prompt_toolkit).

A wide character (中) takes two cells, a combining mark none; ``wcwidth`` (the
library prompt_toolkit itself measures with) knows which. Cutting keeps whole
characters with their marks and shows an ellipsis where text was dropped:

>>> cell_width("10♦"), cell_width("中文"), cell_width("")
(3, 4, 0)
>>> fit("unreadable: line 3: not JSON", 16), fit("中文中文", 5), fit("bob", 16)
('unreadable: lin…', '中文…', 'bob')
>>> fit("20261130T101500Z-bob-1a2b3c4d.jsonl#2", 18, keep_end=True)
'…-1a2b3c4d.jsonl#2'
>>> pad("中", 4) + "|", pad("7", 5, right=True) + "|"
('中  |', '    7|')
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Iterable

from wcwidth import wcswidth

ELLIPSIS = "…"


def cell_width(text: str) -> int:
    """The cells ``text`` (printable: see :func:`cli.printable.printable`) takes on a terminal."""
    width = wcswidth(text)
    return width if width >= 0 else len(text)  # a control character: each shown as one placeholder


def fit(text: str, cells: int, keep_end: bool = False) -> str:
    """``text`` if it takes at most ``cells`` cells, else cut to ``cells`` with an ellipsis.

    The start is kept, or the end with ``keep_end``.
    """
    if cell_width(text) <= cells:
        return text
    if cells < 1:
        return ""
    clusters = _clusters(text)
    if keep_end:
        clusters.reverse()
    kept: list[str] = []
    for cluster in clusters:
        if cell_width("".join([*kept, cluster])) > cells - 1:
            break
        kept.append(cluster)
    if keep_end:
        return ELLIPSIS + "".join(reversed(kept))
    return "".join(kept) + ELLIPSIS


def _clusters(text: str) -> list[str]:
    """``text`` as characters each with the marks that follow it (never cut apart)."""
    clusters: list[str] = []
    for char in text:
        if clusters and unicodedata.category(char).startswith("M"):
            clusters[-1] += char
        else:
            clusters.append(char)
    return clusters


def pad(text: str, cells: int, right: bool = False) -> str:
    """``text`` filled with spaces to ``cells`` cells, on the right (or on the left with ``right``)."""
    room = " " * max(0, cells - cell_width(text))
    return room + text if right else text + room


def wrap(text: str, width: int, measure: Callable[[str], int] = cell_width) -> list[str]:
    """``text`` in lines of at most ``width`` cells (by ``measure``), broken at spaces; a word
    wider than a line stands alone on one.

    >>> wrap("Your trumps beat other suits", 12)
    ['Your trumps', 'beat other', 'suits']
    """
    return wrap_words(text.split(), width, measure)


def wrap_words(words: Iterable[str], width: int, measure: Callable[[str], int] = cell_width) -> list[str]:
    """``words`` (each kept whole, a space may be inside one) joined by spaces in lines of at most
    ``width`` cells; a word wider than a line stands alone on one.

    >>> wrap_words(["Send this:", "trumps join 10.0.0.1:5/x"], 20)
    ['Send this:', 'trumps join 10.0.0.1:5/x']
    """
    lines: list[str] = []
    line = ""
    for word in words:
        candidate = f"{line} {word}" if line else word
        if line and measure(candidate) > width:
            lines.append(line)
            line = word
        else:
            line = candidate
    if line:
        lines.append(line)
    return lines
