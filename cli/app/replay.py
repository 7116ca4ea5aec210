"""The viewer of ``trumps replay``: a saved game, one move at a time, with the arrow keys."""

from __future__ import annotations

from prompt_toolkit.application import Application
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import ConditionalContainer, HSplit, Layout, VSplit, Window
from prompt_toolkit.output import Output

from cli.app.board import Line, hand_lines, history_lines, move_words, pile_lines, trump_label
from cli.app.cards import count_cards
from cli.app.layout import (
    HISTORY_LINES,
    HISTORY_WIDTH,
    history_window,
    join_lines,
    rule,
    terminal_size,
    text_window,
    too_small,
)
from cli.app.session import MY_NAME
from cli.app.style import game_style
from engine import Game
from engine.game import result_text

KEYS = (("←/→", "step"), ("PgUp/PgDn", "10 moves"), ("Home/End", "start/end"), ("q", "quit"))


class Replay:
    """A saved game and the move the viewer stands at (``step`` moves played)."""

    def __init__(self, game: Game, title: str, ascii: bool = False) -> None:
        self.game = game
        self.title = title
        self.ascii = ascii
        self.step = 0
        names = game.headers.get("Players", "").split(" vs ")
        self.names = names if len(names) == 2 else ["Player 0", "Player 1"]
        self.bottom = self.names.index(MY_NAME) if MY_NAME in self.names else 0

    def go(self, step: int) -> None:
        """Stand after move ``step`` (clamped to the game)."""
        self.step = max(0, min(step, len(self.game.moves)))

    def player(self, player: int) -> tuple[StyleAndTextTuples, StyleAndTextTuples]:
        """The rule naming a player, and their hand, at this step."""
        position = self.game.positions[self.step]
        trump = self.game.start.trumps[player]
        label: Line = [("class:rule.label", self.names[player]), ("class:muted", " · ")]
        label += trump_label(trump, self.ascii)
        label.append(("class:muted", f" · {count_cards(len(position.hand(player)))}"))
        width = terminal_size().columns
        lines = hand_lines(position.hand(player), width - 1, self.ascii, trump=trump)
        return rule(label, width), join_lines(lines[:2])

    def header(self) -> StyleAndTextTuples:
        """The title bar: file, date and result."""
        date = self.game.headers.get("Date", "?")[:16]
        players = " vs ".join(self.names)
        return [
            ("class:title.name", " Replay "),
            ("", f"│ {players} │ {date} │ {result_text(self.game.result)} │ {self.title}"),
        ]

    def table(self) -> StyleAndTextTuples:
        """The pile and the move just played."""
        position = self.game.positions[self.step]
        total = len(self.game.moves)
        width = terminal_size().columns - HISTORY_WIDTH - 2
        lines: list[Line] = [
            [("class:rule.label", " Pile"), ("class:muted", f"  {count_cards(len(position.pile))}")],
            *pile_lines(position.pile, width, self.ascii),
        ]
        if self.step:
            mover = self.names[self.game.positions[self.step - 1].turn]
            did = move_words(self.game, self.step, self.ascii)
            lines.append([("class:turn", f" Move {self.step} of {total}: {mover} {did}.")])
        else:
            lines.append([("class:turn", f" The deal. {total} moves follow.")])
        if self.step == total:
            lines.append([("class:result", f" Result: {result_text(self.game.result)}")])
        return join_lines(lines)

    def history(self) -> list[Line]:
        """The moves up to this one."""
        return history_lines(self.game, self.names, HISTORY_LINES, self.ascii, upto=self.step)

    def key_bar(self) -> StyleAndTextTuples:
        """The keys of the viewer."""
        bar: StyleAndTextTuples = []
        for key, what in KEYS:
            bar += [("class:keybar.key", key), ("class:keybar", f" {what}  ")]
        return bar


def replay_application(
    replay: Replay, four_color: bool = False, input: Input | None = None, output: Output | None = None
) -> Application[None]:
    """The full-screen viewer of ``replay``."""
    top, bottom = 1 - replay.bottom, replay.bottom
    board = HSplit(
        [
            text_window(replay.header, 1, style="class:title"),
            text_window(lambda: replay.player(top)[0], 1),
            text_window(lambda: replay.player(top)[1], 2),
            VSplit(
                [
                    text_window(replay.table, wrap_lines=True),
                    Window(width=1, char="│", style="class:rule"),
                    history_window(replay.history),
                ]
            ),
            text_window(lambda: replay.player(bottom)[0], 1),
            text_window(lambda: replay.player(bottom)[1], 2),
            text_window(replay.key_bar, 1, style="class:keybar"),
        ]
    )
    small = Condition(too_small)
    note = text_window(
        lambda: [("class:small", "Window too small for the replay: at least 80x24 please (q quits).")],
        wrap_lines=True,
    )
    bindings = KeyBindings()
    steps = {"left": -1, "right": 1, "pageup": -10, "pagedown": 10, "up": -1, "down": 1}
    for key, step in steps.items():
        bindings.add(key)(lambda event, step=step: replay.go(replay.step + step))
    bindings.add("home")(lambda event: replay.go(0))
    bindings.add("end")(lambda event: replay.go(len(replay.game.moves)))

    @bindings.add("q")
    @bindings.add("escape", eager=True)
    @bindings.add("c-q")
    @bindings.add("c-c")
    def _quit(event: KeyPressEvent) -> None:
        event.app.exit()

    return Application(
        layout=Layout(HSplit([ConditionalContainer(board, ~small), ConditionalContainer(note, small)])),
        key_bindings=bindings,
        style=game_style(four_color),
        full_screen=True,
        input=input,
        output=output,
    )
