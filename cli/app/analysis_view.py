"""The analysis screen over the game screen: the finished game on the replay's board, standing
at one of its moves (←/→ go from one of the player's marked moves to the next: proven mistakes,
estimated mistakes, doubtful moves; ↑/↓ and PgUp/PgDn through every move), the verdicts in the
move log, and the analysis' progress. It only reads the :class:`~cli.app.coach.Coach`."""

from __future__ import annotations

from prompt_toolkit.filters import Condition, Filter
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import Container, Dimension

from cli.app.bars import key_bar_window
from cli.app.board import Line
from cli.app.cards import move_text
from cli.app.coach import Coach
from cli.app.fragments import join_lines, text_window, wrapped
from cli.app.replay import Replay, replay_board
from cli.app.screen import GameScreen
from cli.app.sizes import terminal_size
from cli.app.widths import wrap
from cli.coach_words import marks_words, turning_words
from cli.i18n import N_, _, ngettext

KEYS = (
    ("←/→", N_("marked moves")),
    ("↑/↓", N_("moves")),
    ("Home/End", N_("first/end")),
    ("Esc", N_("close")),
)
BAR_CELLS = 20
"""The progress bar's width."""


class AnalysisView:
    """What the analysis screen shows of ``screen.coach``."""

    def __init__(self, screen: GameScreen) -> None:
        self.screen = screen
        self._replay: Replay | None = None

    @property
    def coach(self) -> Coach:
        return self.screen.coach

    def replay(self) -> Replay:
        """The analysed game on the replay's board, at the marked move shown (or at the end), with the
        verdicts so far."""
        game = self.coach.game
        assert game is not None
        if self._replay is None or self._replay.game is not game:
            record = self.screen.saver.path
            self._replay = Replay(game, record.name if record else "", self.screen.display.ascii)
            self._replay.heading = _("Analysis")
        replay = self._replay
        replay.verdicts = {verdict.index: verdict for verdict in self.coach.verdicts}
        at = self.coach.at
        replay.go(len(game.moves) if at is None else at + 1)
        return replay

    def status(self) -> StyleAndTextTuples:
        """How far the analysis is, or what it found, and where it was saved."""
        coach = self.coach
        done, total = len(coach.verdicts), coach.total
        if coach.running:
            filled = BAR_CELLS * done // max(1, total)
            bar = "█" * filled + "░" * (BAR_CELLS - filled)
            text = _("Analysing your moves: {done} of {total} (Esc stops)").format(done=done, total=total)
            mark = f" {bar} "
            rows = wrap(text, terminal_size().columns - len(mark) - 1)  # broken between words, under the text
            progress: list[Line] = [[("class:thinking", mark), ("class:muted", rows[0])]]
            return join_lines(progress + [[("class:muted", " " * len(mark) + row)] for row in rows[1:]])
        marked = coach.marked()
        shown = coach.shown()
        if not marked:
            text = ngettext(
                "No proven mistake and no doubtful move in your {total} move.",
                "No proven mistake and no doubtful move in your {total} moves.",
                total,
            ).format(total=total)
        elif shown is None:
            text = ngettext(
                "In your moves: {marks}. ←/→ go through it.",
                "In your moves: {marks}. ←/→ go through them.",
                len(marked),
            ).format(marks=marks_words(coach.verdicts))
        else:
            what = _("proven mistake") if shown.mistake else _("estimate, not proven")
            text = _("Marked move {number} of {count}: {what}.").format(
                number=marked.index(shown) + 1, count=len(marked), what=what
            )
        turning = turning_words(coach.verdicts, lambda move: move_text(move, self.screen.display.ascii))
        if turning is not None and shown is None:
            text = f"{text} {turning}"
        width = terminal_size().columns
        lines = wrapped("class:result", " ", text, width)
        if coach.note:
            lines += wrapped("class:muted", " ", coach.note, width)
        return join_lines(lines)

    def bar_keys(self) -> list[tuple[str, str]]:
        """The analysis screen's keys, then help and quit, for its key bar."""
        return [(key, _(what)) for key, what in (*KEYS, ("F1", N_("Help")), ("^Q", N_("Quit")))]


def analysis_open(screen: GameScreen) -> Filter:
    """Whether the analysis screen shows (the help goes over it)."""
    return Condition(lambda: screen.coach.open and screen.coach.game is not None and not screen.help.open)


def analysis_container(screen: GameScreen) -> Container:
    """The analysis screen of ``screen``."""
    view = AnalysisView(screen)
    return replay_board(
        view.replay,
        [
            text_window(view.status, Dimension(min=1, max=6), wrap_lines=True),
            key_bar_window(view.bar_keys),
        ],
    )


def analysis_bindings(screen: GameScreen) -> KeyBindings:
    """The keys of the analysis screen; the other keys do nothing there (the game's commands
    still work: F1, Ctrl-Q)."""
    bindings = KeyBindings()
    showing = analysis_open(screen)
    coach = screen.coach

    bindings.add("left", filter=showing)(lambda event: coach.step(-1))
    bindings.add("right", filter=showing)(lambda event: coach.step(1))
    for key, moves in (("up", -1), ("down", 1), ("pageup", -10), ("pagedown", 10)):
        bindings.add(key, filter=showing)(lambda event, moves=moves: coach.step_moves(moves))

    @bindings.add("home", filter=showing)
    def _first(event: KeyPressEvent) -> None:
        coach.first()

    @bindings.add("end", filter=showing)
    def _end(event: KeyPressEvent) -> None:
        coach.at = None

    @bindings.add("escape", filter=showing, eager=True)
    def _close(event: KeyPressEvent) -> None:
        coach.close()

    @bindings.add("<any>", filter=showing)
    @bindings.add("enter", filter=showing)
    @bindings.add("tab", filter=showing)
    def _ignore(event: KeyPressEvent) -> None:
        """Typing does not reach the hidden move line."""

    return bindings
