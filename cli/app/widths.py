"""How many terminal cells text takes, as terminals count them.

prompt_toolkit measures text with the ``wcwidth`` package, which counts the
Devanagari vowel signs that take room of their own (spacing combining marks,
Unicode category Mc: ``ा ि ी ो``...) as zero cells. The C library's
``wcwidth`` — what tmux, xterm and VTE terminals use — counts them as one. When
the two disagree every Hindi line pushes the rest of the screen out of place, so
this module makes prompt_toolkit count them as terminals do, once, on import.
Everything in the app measures through :func:`cell_width`.

prompt_toolkit offers no public way to tell it a character's width, so the
cache of its ``get_cwidth`` is set here, in this one place;
``tests/test_cli_widths.py`` fails as soon as the library measures otherwise.

A second, separate fault is prompt_toolkit's, and it is worked around through
its public API: it writes a zero-width character (a vowel sign that takes no
room of its own, ``ै ं ँ``) into the previous cell *and* into a cell of its
own, which the next character overwrites — unless nothing follows on the line,
when terminals print the sign twice (``हैै``). :func:`close_lines` ends such
lines with a space, and every window of the app shows its text through it
(:class:`CloseLines` for the move line).

>>> cell_width("खिलाड़ी"), cell_width("Свої козирі"), cell_width("10♦")
(6, 11, 3)
"""

from __future__ import annotations

import unicodedata

from prompt_toolkit import utils
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.layout.processors import Processor, Transformation, TransformationInput

from cli import cells

SPACING_MARKS = "".join(c for c in map(chr, range(0x0900, 0x0980)) if unicodedata.category(c) == "Mc")
"""The Devanagari spacing combining marks: one cell each in a terminal."""


def _agree_with_terminals() -> None:
    # prompt_toolkit keeps every width it measured in this cache (strings too): clear it, then
    # give the marks their width before anything is measured again.
    sizes = utils._CHAR_SIZES_CACHE
    sizes.clear()
    sizes.update(dict.fromkeys(SPACING_MARKS, 1))


_agree_with_terminals()


def cell_width(text: str) -> int:
    """The cells ``text`` takes on a terminal."""
    return utils.get_cwidth(text)


def wrap(text: str, width: int) -> list[str]:
    """``text`` in lines of at most ``width`` terminal cells (as the screen measures them), broken
    at spaces (:func:`cli.cells.wrap`).

    >>> wrap("Your trumps beat other suits", 12)
    ['Your trumps', 'beat other', 'suits']
    """
    return cells.wrap(text, width, cell_width)


def close_lines(fragments: StyleAndTextTuples) -> StyleAndTextTuples:
    """``fragments`` with a space after every line that ends in a zero-width character, so that
    prompt_toolkit does not leave that character in a cell of its own (see the module docs).

    >>> close_lines([("", "है\\nok")]), close_lines([("b", "करें"), ("", "\\n")])
    ([('', 'है \\nok')], [('b', 'करें'), ('', ' \\n')])
    """
    out: StyleAndTextTuples = []
    last = ""
    for fragment in fragments:
        text = fragment[1]
        if "\n" in text:
            lines = text.split("\n")
            for i, line in enumerate(lines[:-1]):
                if _is_mark(line[-1:] or last):
                    lines[i] = line + " "
            text = "\n".join(lines)
            fragment = (fragment[0], text, *fragment[2:])
        out.append(fragment)
        last = text[-1:] or last
    if _is_mark(last):
        out.append(("", " "))
    return out


def _is_mark(char: str) -> bool:
    return char not in ("", "\n") and cell_width(char) == 0


class CloseLines(Processor):
    """:func:`close_lines` for a ``BufferControl`` (what is typed on the move line)."""

    def apply_transformation(self, transformation_input: TransformationInput) -> Transformation:
        """The line's fragments, closed."""
        return Transformation(close_lines(transformation_input.fragments))
