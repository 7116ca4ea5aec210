"""The prompt_toolkit ``Application`` of the game, and running it."""

from __future__ import annotations

from prompt_toolkit.application import Application
from prompt_toolkit.filters import Condition
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import merge_key_bindings
from prompt_toolkit.layout import ConditionalContainer, HSplit, Layout
from prompt_toolkit.output import Output, create_output

from cli.app.analysis_view import analysis_bindings, analysis_container, analysis_open
from cli.app.keys import key_bindings
from cli.app.layout import create_layout
from cli.app.screen import GameScreen
from cli.app.sizes import centred, too_small
from cli.app.style import game_style

ESCAPE_WAIT = 0.1
"""Seconds to wait after Esc for the rest of a key sequence (prompt_toolkit's default, 0.5 s,
makes Esc feel slow)."""


def create_application(
    screen: GameScreen, input: Input | None = None, output: Output | None = None
) -> Application[None]:
    """The full-screen game for ``screen`` (``input``/``output`` for tests)."""
    output = output or create_output()
    display = screen.display
    game = create_layout(screen)
    coaching = analysis_open(screen) & ~Condition(too_small)  # the game screen says "too small"
    body = HSplit(
        [
            ConditionalContainer(game.container, ~coaching),
            ConditionalContainer(analysis_container(screen), coaching),
        ]
    )
    app: Application[None] = Application(
        # in a window too small (the note shows) the board is the whole window: no other layout
        # for it, so the body is in the tree once, which prompt_toolkit walks at every key
        layout=Layout(centred(body), focused_element=game.current_window),
        key_bindings=merge_key_bindings([key_bindings(screen), analysis_bindings(screen)]),
        style=game_style(display.four_color, display.theme, output.get_default_color_depth()),
        full_screen=True,
        mouse_support=True,
        input=input,
        output=output,
    )
    app.ttimeoutlen = ESCAPE_WAIT

    def leave() -> None:
        if app.is_running and app.future is not None and not app.future.done():
            app.exit()

    def bell() -> None:
        app.output.bell()

    screen.connect(app.invalidate, leave, bell)
    return app


async def play(screen: GameScreen, input: Input | None = None, output: Output | None = None) -> None:
    """Run the game until the player quits; the opponent is closed whatever happens."""
    app = create_application(screen, input, output)
    try:
        await app.run_async(pre_run=screen.start)
    except EOFError:  # the terminal is gone: its input ended (its SIGHUP, if any, is still to come)
        screen.flow.opponent.hang_up()
        raise
    finally:
        screen.close()
