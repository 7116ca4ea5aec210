"""Text from outside (a peer, a record, a file name) made safe to show on a terminal.

A terminal obeys some characters instead of showing them: ESC starts sequences
that move the cursor, erase lines, set the title or the clipboard; CR and
backspace overwrite what is already there; a newline starts a line that looks
like the program's own; bidi overrides turn text around (``evil\\u202etxt.exe``).
Every text that came from outside goes through :func:`printable` before it is
shown, so it can only ever be read, never obeyed:

>>> printable("bob\\x1b[2K\\rcomplete: score 2 - 0")
'bob␛[2K␍complete: score 2 - 0'
>>> printable("line one\\nline two"), printable("tab\\there")
('line one␊line two', 'tab␉here')
>>> printable("\\x7f \\x9b \\u202e \\u200b \\u2028 \\udc80")
'␡ � � � � �'
>>> printable("чалі ♠ 10♥ आपकी चालें")  # any readable text stays as it is
'чалі ♠ 10♥ आपकी चालें'
"""

from __future__ import annotations

PLACEHOLDER = "\ufffd"
"""What stands for a character that would not show as itself (``�``)."""
_CONTROL_PICTURES = {code: chr(0x2400 + code) for code in range(0x20)} | {0x7F: "\u2421"}
"""C0 controls and DEL as the Unicode control pictures (␛, ␊, ␡), which say which one it was."""


def printable(text: object) -> str:
    """``text`` (as ``str``) with every character a terminal would obey replaced by a visible one.

    C0 controls and DEL become their control pictures; every other character that is not
    printable (C1 controls, format characters such as bidi overrides and zero-width ones,
    line and paragraph separators, surrogates, private-use and unassigned code points, spaces
    other than the plain one) becomes :data:`PLACEHOLDER`.
    """
    shown = str(text)
    if shown.isprintable():
        return shown
    return "".join(
        char if char.isprintable() else _CONTROL_PICTURES.get(ord(char), PLACEHOLDER) for char in shown
    )
