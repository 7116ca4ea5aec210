"""Key bindings. Letters and digits always go to the move line (``qs`` is the
queen of spades), so commands use function keys or Ctrl combinations, each
listed once in :data:`COMMAND_KEYS` for the bindings, the key bar and the help.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from prompt_toolkit.buffer import CompletionState
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.filters import Condition
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent

from cli.app import key_commands, move_entry
from cli.app.completion import MoveCompleter
from cli.app.opponent import Opponent
from cli.app.screen import GameScreen
from cli.i18n import N_


@dataclass(frozen=True)
class CommandKey:
    """A command: its keys (prompt_toolkit names, the first shown in the key bar), name and help
    (both marked for translation, translated where shown), and against whom it works (the key
    bar shows only the commands that do)."""

    keys: tuple[str, ...]
    name: str
    help: str
    action: Callable[[GameScreen], None]
    works: Callable[[Opponent], bool] = lambda opponent: True
    shown: Callable[[GameScreen], bool] | None = None
    """When the key bar shows it, beyond ``works`` (``None``: always)."""


COMMAND_KEYS = (
    CommandKey(("f1",), N_("Help"), N_("this help (also ? on an empty move line)"), key_commands.toggle_help),
    CommandKey(
        ("f2", "c-t"),
        N_("Hint"),
        N_("the AI suggests a move and puts it on the move line (in a duel: if the host allows hints)"),
        key_commands.hint,
        lambda opponent: opponent.hints,
        shown=lambda screen: screen.flow.in_progress,
    ),
    CommandKey(
        ("f3", "c-z"),
        N_("Undo"),
        N_("take back your last move (against the AI)"),
        key_commands.undo,
        lambda opponent: opponent.local,
        shown=lambda screen: screen.flow.in_progress,
    ),
    CommandKey(("f4", "c-o"), N_("Hand"), N_("hide or show the opponent's hand"), key_commands.toggle_opponent),
    CommandKey(
        ("f5", "c-n"),
        N_("New"),
        N_("deal a new game (asks first in the middle of one)"),
        key_commands.new_game,
        lambda opponent: opponent.local,
    ),
    CommandKey(
        ("f6",),
        N_("Analysis"),
        N_(
            "after a game: the coach's verdict on each of your moves (←/→ go through the mistakes and doubtful moves, ↑/↓ through every move)"
        ),
        key_commands.analyze,
        shown=lambda screen: screen.flow.game is not None and screen.flow.game.result is not None,
    ),
    CommandKey(("c-q", "f10"), N_("Quit"), N_("quit (asks first in the middle of a game)"), key_commands.quit),
    CommandKey(
        ("c-c",),
        N_("Cancel"),
        N_("cancel the question asked (it never says yes to quitting); with none, as ^Q"),
        key_commands.interrupt,
        shown=lambda screen: False,  # the key bar's Quit is ^Q; ^C is what a terminal's user tries
    ),
)


HELP_ENDS = 10**6
"""Lines Home and End scroll the help by: to its top or its end (the layout keeps it within)."""
CHAT_PAGE = 3
"""Chat lines PgUp and PgDn scroll the game screen's chat by."""


def key_label(key: str) -> str:
    """How a key is written for people: ``F2``, ``^T``.

    >>> key_label("f10"), key_label("c-q")
    ('F10', '^Q')
    """
    return "^" + key[2:].upper() if key.startswith("c-") else key.upper()


def key_bindings(screen: GameScreen) -> KeyBindings:
    """Every binding of the game screen."""
    bindings = KeyBindings()
    helping = Condition(lambda: screen.help.open)
    asking = Condition(lambda: screen.line.question is not None)
    picking = Condition(lambda: screen.line.buffer.text == screen.line.picked_text()) & ~asking
    empty = Condition(lambda: not screen.line.buffer.text)

    for command in COMMAND_KEYS:
        for key in command.keys:
            bindings.add(key)(_run(command.action, screen))

    @bindings.add("c-l")
    def _redraw(event: KeyPressEvent) -> None:
        event.app.renderer.clear()  # draws everything afresh: what else wrote to the terminal is gone

    @bindings.add("?", filter=empty & ~helping)
    def _help(event: KeyPressEvent) -> None:
        key_commands.toggle_help(screen)

    for key, step in (("up", -1), ("down", 1), ("pageup", -10), ("pagedown", 10), ("home", -HELP_ENDS)):
        bindings.add(key, filter=helping)(lambda event, step=step: screen.help.scroll(step))
    bindings.add("end", filter=helping)(lambda event: screen.help.scroll(HELP_ENDS))

    playing = ~helping & Condition(lambda: not screen.coach.open)  # the analysis has its own keys
    for key, step in (("pageup", CHAT_PAGE), ("pagedown", -CHAT_PAGE)):
        bindings.add(key, filter=playing)(lambda event, step=step: key_commands.scroll_chat(screen, step))

    @bindings.add("<any>", filter=helping)
    @bindings.add("enter", filter=helping)
    @bindings.add("escape", filter=helping, eager=True)
    def _close_help(event: KeyPressEvent) -> None:
        screen.help.open = False

    @bindings.add("enter", filter=~helping)
    def _enter(event: KeyPressEvent) -> None:
        buffer = screen.line.buffer
        if buffer.complete_state is not None:
            buffer.complete_state = None
        move_entry.enter(screen)

    completer = MoveCompleter(screen)

    @bindings.add("tab", filter=~helping)
    def _tab(event: KeyPressEvent) -> None:
        _complete(screen, completer, 1)

    @bindings.add("s-tab", filter=~helping)
    def _back_tab(event: KeyPressEvent) -> None:
        _complete(screen, completer, -1)

    @bindings.add("escape", filter=~helping, eager=True)
    def _escape(event: KeyPressEvent) -> None:
        if screen.line.buffer.complete_state is not None:
            screen.line.buffer.cancel_completion()
        else:
            move_entry.unpick(screen)

    @bindings.add("left", filter=picking & ~helping)
    def _left(event: KeyPressEvent) -> None:
        move_entry.move_cursor(screen, -1)

    @bindings.add("right", filter=picking & ~helping)
    def _right(event: KeyPressEvent) -> None:
        move_entry.move_cursor(screen, 1)

    @bindings.add("up", filter=~helping & ~asking)
    def _previous_playable(event: KeyPressEvent) -> None:
        move_entry.move_to_playable(screen, -1)

    @bindings.add("down", filter=~helping & ~asking)
    def _next_playable(event: KeyPressEvent) -> None:
        move_entry.move_to_playable(screen, 1)

    return bindings


def _complete(screen: GameScreen, completer: MoveCompleter, step: int) -> None:
    """Tab and Shift-Tab: fill in the first (last) legal move, then cycle.

    Completion runs here, synchronously, rather than in prompt_toolkit's
    background task, so that Enter right after Tab always sees the move.
    """
    buffer = screen.line.buffer
    if buffer.complete_state is not None:
        buffer.complete_next() if step > 0 else buffer.complete_previous()
        return
    event = CompleteEvent(completion_requested=True)
    completions = list(completer.get_completions(buffer.document, event))
    if not completions:
        move_entry.explain_no_completion(screen)
        return
    buffer.complete_state = CompletionState(buffer.document, completions)
    buffer.go_to_completion(0 if step > 0 else len(completions) - 1)


def _run(action: Callable[[GameScreen], None], screen: GameScreen) -> Callable[[KeyPressEvent], None]:
    def handler(event: KeyPressEvent) -> None:
        if screen.help.open and action is not key_commands.toggle_help:
            screen.help.open = False
        action(screen)

    return handler
