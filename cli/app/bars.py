"""The game screen's bars: the title over the board (the players and their trumps, which game
of the match, the score), the move line's prompt, and the key bar under it."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.layout import Dimension, Window

from cli.app.board import Line
from cli.app.cards import suit_text
from cli.app.fragments import fragment_width, join_lines, text_window
from cli.app.keys import COMMAND_KEYS, key_label
from cli.app.screen import GameScreen
from cli.app.sizes import terminal_size
from cli.i18n import _


def title(screen: GameScreen) -> StyleAndTextTuples:
    """The title bar: the game's name, who plays with which trumps, the game of the match and
    the score (the game's name gives way to a long translation)."""
    flow, ascii = screen.flow, screen.display.ascii
    parts: StyleAndTextTuples = [("class:title.name", " " + _("Your trumps") + " ")]
    if flow.game is not None:
        trumps = flow.game.start.trumps
        me = _("You") + " " + suit_text(trumps[flow.me], ascii)
        them = flow.their_name + " " + suit_text(trumps[1 - flow.me], ascii)
        parts.append(("", "│ " + _("{me} vs {them}").format(me=me, them=them) + " "))
    if flow.match_ended:
        parts.append(("", "│ " + _("Match over") + " "))
    elif flow.match.games > 1:
        game = _("Game {number} of {games}").format(number=flow.game_number, games=flow.match.games)
        parts.append(("", f"│ {game} "))
    short = flow.their_name.split(" (")[0]  # the level is named just before
    parts.append(("", f"│ {flow.match.headline(_('You'), short)} "))
    if fragment_width(parts) > terminal_size().columns:
        parts[0] = ("class:title.name", " ")  # a long translation: the game's name gives way first
    return parts


def prompt(screen: GameScreen) -> StyleAndTextTuples:
    """The move line's prompt: whether it takes an answer or a move."""
    return [("class:prompt", " " + (_("answer>") if screen.line.question is not None else _("move>")) + " ")]


def bar_keys(screen: GameScreen) -> list[tuple[str, str]]:
    """The key bar's keys: each command that works now, by its first key and its name."""
    shown = []
    for command in COMMAND_KEYS:
        if not command.works(screen.flow.opponent):
            continue  # refused here (undo in a duel…): not advertised
        if command.shown is not None and not command.shown(screen):
            continue
        shown.append((key_label(command.keys[0]), _(command.name)))
    return shown


def key_bar_lines(keys: Sequence[tuple[str, str]]) -> list[Line]:
    """Keys and what they do, two spaces apart, one in a narrow window, and on two rows when
    one is too narrow even so (broken between keys, never inside one)."""
    width = terminal_size().columns
    for gap in ("  ", " "):
        bar: Line = []
        for key, what in keys:
            bar += [("class:keybar.key", key), ("class:keybar", f" {what}{gap}")]
        if fragment_width(bar) - len(gap) <= width:
            return [bar]
    rows: list[Line] = [[]]
    for key, what in keys:
        entry: Line = [("class:keybar.key", key), ("class:keybar", f" {what} ")]
        if rows[-1] and fragment_width(rows[-1]) + fragment_width(entry) - 1 > width:
            rows.append([])
        rows[-1] += entry
    return rows


def key_bar_window(keys: Callable[[], Sequence[tuple[str, str]]]) -> Window:
    """The key bar of ``keys()``: one row, or two where one is too narrow (:func:`key_bar_lines`)."""
    return text_window(
        lambda: join_lines(key_bar_lines(keys())),
        lambda: Dimension.exact(len(key_bar_lines(keys()))),
        style="class:keybar",
    )
