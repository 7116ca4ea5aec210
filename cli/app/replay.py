"""The viewer of ``trumps replay``: a saved game, one move at a time, with the arrow keys."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from prompt_toolkit.application import Application
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import ConditionalContainer, Container, HSplit, Layout
from prompt_toolkit.output import Output, create_output

from cli.app.bars import key_bar_window
from cli.app.board import Line, hand_lines, move_words, pile_heading, pile_lines, trump_label
from cli.app.cards import count_cards, move_text
from cli.app.fragments import join_lines, rule, small_note, text_window, wrapped
from cli.app.move_history import move_log, with_history
from cli.app.names import MY_NAME, shown_name
from cli.app.sizes import centred, table_width, terminal_size, too_small
from cli.app.style import game_style
from cli.app.widths import cell_width
from cli.cells import fit
from cli.coach_words import verdict_words
from cli.i18n import N_, _, ngettext
from cli.reasons import reason_words
from engine import Game, Outcome
from engine.ai.analysis import DOUBTFUL, ESTIMATED_MISTAKE, WIN_TO_LOSS, Verdict

KEYS = (("←/→", N_("step")), ("PgUp/PgDn", N_("10 moves")), ("Home/End", N_("start/end")), ("q", N_("quit")))


def outcome_words(outcome: Outcome | None, winner: str | None = None) -> str:
    """A saved game's result in words, never the record's ``1-0 out``: ``You won (out)``, ``Bob won
    (out)`` (``winner``: the winner's name as shown, ``None`` for the local player), ``a draw
    (repetition)``; an unfinished game's (the record's ``*``) ``unfinished``."""
    if outcome is None:
        # Translators: the result of a saved game that was never finished (the replay's title).
        return _("unfinished")
    reason = reason_words(outcome)
    if outcome.winner is None:
        return _("a draw ({reason})").format(reason=reason)
    if winner is None:
        return _("You won ({reason})").format(reason=reason)
    return _("{name} won ({reason})").format(name=winner, reason=reason)


def verdict_mark(verdict: Verdict) -> str:
    """The move log's mark, as chess has it: ``??`` a win turned into a loss, ``?`` the other
    proven mistakes; for an estimate, ``(?)`` an estimated mistake (in brackets: never read as
    the proven ``?``) and ``?!`` a doubtful move; nothing for the others."""
    if verdict.mistake:
        return "??" if verdict.kind == WIN_TO_LOSS else "?"
    return {ESTIMATED_MISTAKE: "(?)", DOUBTFUL: "?!", None: ""}[verdict.grade]


def mark_style(verdict: Verdict) -> str:
    """The mark's style: a proven mistake's is the error's, an estimate's its own, milder."""
    return "class:message.error" if verdict.mistake else "class:verdict.estimate"


class Replay:
    """A saved game and the move the viewer stands at (``step`` moves played)."""

    def __init__(
        self,
        game: Game,
        title: str,
        ascii: bool = False,
        verdicts: dict[int, Verdict] | None = None,
        note: str = "",
    ) -> None:
        self.game = game
        self.heading = _("Replay")
        self.note = note
        """Shown at the deal: what the coach's saved analysis holds, or why it cannot be read."""
        self.title = title
        self.ascii = ascii
        self.verdicts = {} if verdicts is None else verdicts
        """The coach's verdicts by move index (a saved analysis, or the one running)."""
        self.step = 0
        names = game.headers.get("Players", "").split(" vs ")
        self.bottom = names.index(MY_NAME) if len(names) == 2 and MY_NAME in names else 0
        if len(names) != 2:
            names = [_("Player {seat}").format(seat=seat) for seat in (0, 1)]
        self.names = [shown_name(name) for name in names]
        self.mine = [name == MY_NAME for name in names]

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

    def result_words(self) -> str:
        """How the game ended, the winner named as shown (:func:`outcome_words`)."""
        outcome = self.game.result
        winner = None
        if outcome is not None and outcome.winner is not None and not self.mine[outcome.winner]:
            winner = self.names[outcome.winner]
        return outcome_words(outcome, winner)

    def header(self) -> StyleAndTextTuples:
        """The title bar: players, date, result and file, as many as fit the window (the file
        gives way first, then the date; the players are cut last)."""
        date = self.game.headers.get("Date", "?")[:16]
        players = _("{me} vs {them}").format(me=self.names[0], them=self.names[1])
        result = self.result_words()
        heading = " " + self.heading + " "
        room = terminal_size().columns - cell_width(heading)
        for fields in ([players, date, result, self.title], [players, date, result], [players, result]):
            text = " │ ".join(field for field in fields if field)
            if cell_width(f"│ {text}") <= room:
                break
        else:
            text = f"{fit(players, max(1, room - cell_width(f'│  │ {result}')))} │ {result}"
        return [("class:title.name", heading), ("", f"│ {text}")]

    def table(self) -> StyleAndTextTuples:
        """The pile and the move just played."""
        position = self.game.positions[self.step]
        total = len(self.game.moves)
        width = table_width()
        lines: list[Line] = [
            pile_heading(len(position.pile)),
            *pile_lines(position.pile, width, self.ascii),
        ]
        if self.step:
            mover = self.game.positions[self.step - 1].turn
            did = move_words(
                self.game, self.step, None if self.mine[mover] else self.names[mover], self.ascii
            )
            text = _("Move {number} of {total}: {what}").format(number=self.step, total=total, what=did)
            verdict = self.verdicts.get(self.step - 1)
        else:
            verdict = None
            text = ngettext("The deal. {count} move follows.", "The deal. {count} moves follow.", total)
            text = text.format(count=total)
        lines += wrapped("class:turn", " ", text, width)
        if not self.step and self.note:
            lines += wrapped("class:muted", " ", self.note, width)
        if verdict is not None:
            words = verdict_words(verdict, lambda move: move_text(move, self.ascii))
            mark = verdict_mark(verdict)
            lines += wrapped(mark_style(verdict) if mark else "class:muted", f" {mark or '·'} ", words, width)
        if self.step == total:
            result = _("Result: {result}").format(result=self.result_words())
            lines += wrapped("class:result", " ", result, width)
        return join_lines(lines)

    def history(self) -> list[Line]:
        """The moves up to this one, each marked by :func:`verdict_mark`."""
        lines = move_log(self.game, self.names, self.ascii, upto=self.step)
        first = self.step - len(lines)  # the log ends at this step, and may leave out the oldest moves
        for ply, line in enumerate(lines, first):
            verdict = self.verdicts.get(ply)
            mark = "" if verdict is None else verdict_mark(verdict)
            if verdict is not None and mark:
                line.append((mark_style(verdict), " " + mark))
        return lines

    def bar_keys(self) -> list[tuple[str, str]]:
        """The keys of the viewer, for its key bar."""
        return [(key, _(what)) for key, what in KEYS]


def replay_board(get: Callable[[], Replay], footer: Sequence[Container]) -> HSplit:
    """The board of the replay ``get()`` returns (read at every redraw), with ``footer`` under it:
    the viewer's and the analysis screen's."""

    def player(bottom: bool, part: int) -> Callable[[], StyleAndTextTuples]:
        def text() -> StyleAndTextTuples:
            replay = get()
            return replay.player(replay.bottom if bottom else 1 - replay.bottom)[part]

        return text

    return HSplit(
        [
            text_window(lambda: get().header(), 1, style="class:title"),
            text_window(player(False, 0), 1),
            text_window(player(False, 1), 2),
            with_history(lambda: get().table(), lambda: get().history()),
            text_window(player(True, 0), 1),
            text_window(player(True, 1), 2),
            *footer,
        ]
    )


def replay_application(
    replay: Replay,
    four_color: bool = False,
    theme: str = "standard",
    input: Input | None = None,
    output: Output | None = None,
) -> Application[None]:
    """The full-screen viewer of ``replay`` (``theme``: a name of :data:`cli.app.style.THEMES`)."""
    output = output or create_output()
    board = replay_board(lambda: replay, [key_bar_window(replay.bar_keys)])
    small = Condition(too_small)
    note = text_window(
        lambda: small_note(_("Window too small for the replay: at least 60x20 please (q quits).")),
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
        layout=Layout(HSplit([ConditionalContainer(centred(board), ~small), ConditionalContainer(note, small)])),
        key_bindings=bindings,
        style=game_style(four_color, theme, output.get_default_color_depth()),
        full_screen=True,
        input=input,
        output=output,
    )
