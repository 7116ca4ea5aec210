"""Terminal cells and the bytes written: Devanagari is measured as terminals measure it, and every
vowel sign reaches the terminal exactly once, also at the end of a line."""

from __future__ import annotations

import ctypes
import ctypes.util
import io
import locale
import re
import unicodedata
from collections.abc import Callable

import pytest
from prompt_toolkit.application import Application
from prompt_toolkit.application.current import set_app
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.layout import FormattedTextControl, HSplit, Layout, Window
from prompt_toolkit.output.vt100 import Vt100_Output
from prompt_toolkit.utils import get_cwidth

from cli import i18n
from cli.app.fragments import text_window
from cli.app.widths import cell_width
from tests.test_cli_app import Driver, ai_session, run

ESCAPES = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][A-Z0-9]|\x1b[=>]")
DOUBLED_SIGN = re.compile(r"([\u0900-\u0903\u093a-\u094f\u0951-\u0957\u0962\u0963])\1")
"""A Devanagari vowel sign (or other mark) written twice in a row."""


def terminal(size: Size) -> tuple[Vt100_Output, io.StringIO]:
    written = io.StringIO()
    return Vt100_Output(written, lambda: size, term="xterm-256color"), written


def written_text(window: Window) -> str:
    """What a window's first render (20x3) writes to the terminal, without the escape sequences."""
    output, written = terminal(Size(rows=3, columns=20))
    with create_pipe_input() as pipe:
        app: Application[None] = Application(layout=Layout(HSplit([window])), input=pipe, output=output)
        with set_app(app):
            app.renderer.render(app, app.layout)
    output.flush()
    return ESCAPES.sub("", written.getvalue())


LINES = "चालें है\nकुंजियाँ हैं\nकरें"


def test_prompt_toolkit_alone_writes_a_sign_at_a_line_end_twice() -> None:
    """The library's fault that :func:`cli.app.widths.close_lines` works around: when this test
    fails, prompt_toolkit has been fixed and the workaround can go."""
    raw = written_text(Window(FormattedTextControl([("", LINES)])))
    assert "हैै" in raw and "हैंं" in raw


def test_the_app_writes_every_sign_once() -> None:
    text = written_text(text_window(lambda: [("", LINES)]))
    assert "चालें है" in text and "कुंजियाँ हैं" in text and "करें" in text
    assert not DOUBLED_SIGN.search(text), text
    for word in ("चालें", "है", "कुंजियाँ", "करें"):
        assert text.count(word) == LINES.count(word)


def test_the_hindi_game_screen_writes_no_sign_twice() -> None:
    i18n.use("hi")
    size = Size(rows=24, columns=80)
    output, written = terminal(size)
    session = ai_session(trump="H", games=3)

    async def script(d: Driver) -> None:
        await d.my_turn()
        await d.keys("\t\r")
        await d.my_turn()
        await d.keys("\x1bOP")  # the help too
        await d.until(lambda: session.help.open)

    try:
        run(session, script, output)
    finally:
        i18n.use("en")
    text = ESCAPES.sub("", written.getvalue())
    assert "चाल" in text and "कुंजियाँ" in text
    doubled = DOUBLED_SIGN.search(text)
    assert doubled is None, repr(text[doubled.start() - 80 : doubled.end() + 20])


def _libc_wcwidth() -> Callable[[str], int]:
    name = ctypes.util.find_library("c")
    if name is None:
        pytest.skip("no C library to compare with")
    try:
        locale.setlocale(locale.LC_CTYPE, "C.UTF-8")
    except locale.Error:
        pytest.skip("no C.UTF-8 locale")
    function = ctypes.CDLL(name).wcwidth
    function.argtypes = [ctypes.c_wchar]
    return function


@pytest.mark.net
def test_devanagari_is_measured_as_the_c_library_measures_it() -> None:
    """The one patch of prompt_toolkit's width cache (cli/app/widths.py) holds: prompt_toolkit's
    own measure and the app's agree with the C library (tmux, xterm, VTE) on every Devanagari
    letter and sign. This fails when the library changes how it measures, or its cache."""
    wcwidth = _libc_wcwidth()
    try:
        for code in range(0x0900, 0x0980):
            char = chr(code)
            if unicodedata.category(char) in ("Cn", "Cc"):
                continue
            expected = max(0, wcwidth(char))
            assert get_cwidth(char) == expected == cell_width(char), (hex(code), unicodedata.name(char, "?"))
    finally:
        locale.setlocale(locale.LC_CTYPE, "")
