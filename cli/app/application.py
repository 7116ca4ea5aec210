"""The prompt_toolkit ``Application`` of the game, and running it."""

from __future__ import annotations

from prompt_toolkit.application import Application
from prompt_toolkit.input import Input
from prompt_toolkit.output import Output

from cli.app.keys import key_bindings
from cli.app.layout import create_layout
from cli.app.session import Session
from cli.app.style import game_style

ESCAPE_WAIT = 0.1
"""Seconds to wait after Esc for the rest of a key sequence (prompt_toolkit's default, 0.5 s,
makes Esc feel slow)."""


def create_application(
    session: Session, input: Input | None = None, output: Output | None = None
) -> Application[None]:
    """The full-screen game for ``session`` (``input``/``output`` for tests)."""
    app: Application[None] = Application(
        layout=create_layout(session),
        key_bindings=key_bindings(session),
        style=game_style(session.display.four_color),
        full_screen=True,
        mouse_support=True,
        input=input,
        output=output,
    )
    app.ttimeoutlen = ESCAPE_WAIT

    def leave() -> None:
        if app.is_running and app.future is not None and not app.future.done():
            app.exit()

    session.connect(app.invalidate, leave)
    return app


async def play(session: Session, input: Input | None = None, output: Output | None = None) -> None:
    """Run the game until the player quits; the opponent is closed whatever happens."""
    app = create_application(session, input, output)
    try:
        await app.run_async(pre_run=session.start)
    finally:
        session.close()
