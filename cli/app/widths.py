"""How many terminal cells text takes, as terminals count them.

prompt_toolkit measures text with the ``wcwidth`` package, which counts the
Devanagari vowel signs that take room of their own (spacing combining marks,
Unicode category Mc: ``ा ि ी ो``...) as zero cells. The C library's
``wcwidth`` — what tmux, xterm and VTE terminals use — counts them as one. When
the two disagree every Hindi line pushes the rest of the screen out of place, so
this module makes prompt_toolkit count them as terminals do, once, on import.
Everything in the app measures through :func:`cell_width`.

>>> cell_width("खिलाड़ी"), cell_width("Свої козирі"), cell_width("10♦")
(6, 11, 3)
"""

from __future__ import annotations

import unicodedata

from prompt_toolkit import utils

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
