"""The coach after a game: the analysis of the player's moves, worked out off the event loop.

A :class:`Coach` runs :func:`engine.ai.analysis.analyze` in a worker thread (the search takes
seconds; the screen must stay live), takes each verdict as it comes, shows how far it is, and
can be stopped at any verdict (Esc). When it is complete it is saved beside the game's record
(:mod:`cli.analysis_file`) so that ``trumps replay`` shows it too. It also holds which move the
board stands at: ←/→ go from one marked move (a proven mistake, an estimated mistake or a
doubtful move) to the next, ↑/↓ and PgUp/PgDn through all the moves. No prompt_toolkit here: the view
(:mod:`cli.app.analysis_view`) only reads it.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from pathlib import Path

from cli.analysis_file import save_analysis
from cli.i18n import _
from cli.options import ANALYSIS_NODES
from cli.search_pool import search_pool
from engine import Game
from engine.ai.analysis import Verdict, analyze


class Coach:
    """The analysis of one finished game, for the player in seat ``me``."""

    def __init__(self, nodes: int = ANALYSIS_NODES) -> None:
        """``nodes``: the search's budget for each position (a smaller one in tests)."""
        self.nodes = nodes
        self.open = False
        self.game: Game | None = None
        self.me = 0
        self.verdicts: list[Verdict] = []
        self.total = 0
        """How many verdicts the analysis gives (one for each of the player's moves)."""
        self.running = False
        self.note = ""
        """Where the analysis was saved, or why it could not be."""
        self.at: int | None = None
        """The index of the move the board stands at (showing the position after it); ``None``: at
        the end."""
        self._stop = threading.Event()
        self._changed: Callable[[], None] = lambda: None

    @property
    def complete(self) -> bool:
        """Whether every move has its verdict."""
        return self.game is not None and len(self.verdicts) == self.total and not self.running

    def start(self, game: Game, me: int, record: Path | None, changed: Callable[[], None]) -> None:
        """Open the analysis of ``game``: the one done already, or a new one in a worker thread
        (call inside the event loop); ``changed`` redraws; ``record`` is where the game is saved."""
        self.open, self._changed = True, changed
        if game is self.game and self.complete:
            return
        self.stop()
        self.game, self.me, self.verdicts, self.at, self.note = game, me, [], None, ""
        self.total = sum(1 for position in game.positions[:-1] if position.turn == me)
        self.running = True
        stop = self._stop = threading.Event()
        loop = asyncio.get_running_loop()

        def deliver(verdict: Verdict | None) -> None:
            if not stop.is_set():
                self._arrived(verdict, record)

        def work() -> None:
            try:
                with search_pool() as searches:
                    for verdict in analyze(game, (me,), nodes=self.nodes, map_searches=searches):
                        if stop.is_set():
                            return
                        loop.call_soon_threadsafe(deliver, verdict)
                loop.call_soon_threadsafe(deliver, None)
            except RuntimeError:  # the event loop closed under us: the screen is gone
                return

        threading.Thread(target=work, name="analysis", daemon=True).start()

    def _arrived(self, verdict: Verdict | None, record: Path | None) -> None:
        if verdict is not None:
            self.verdicts.append(verdict)
        else:
            self.running = False
            if record is not None:
                try:
                    saved = save_analysis(str(record), self.verdicts)
                    self.note = _("Saved as {file}: 'trumps replay' shows it.").format(file=saved.name)
                except OSError as exc:
                    self.note = _("The analysis could not be saved: {error}").format(error=exc)
        self._changed()

    def stop(self) -> None:
        """Stop the analysis at the verdict being worked out (what is done stays shown)."""
        self._stop.set()
        self.running = False

    def close(self) -> None:
        """Esc: close the analysis, stopping it if it still runs (opening it again starts afresh)."""
        self.open = False
        self.stop()

    def marked(self) -> list[Verdict]:
        """The verdicts the move log marks, in the game's order: the proven mistakes (a win turned
        into a draw or a loss, a draw into a loss) and the estimates graded doubtful or mistaken."""
        return [verdict for verdict in self.verdicts if verdict.mistake or verdict.grade is not None]

    def step(self, delta: int) -> None:
        """←/→: stand at the previous or next marked move (from the end, ← goes to the last one);
        with none that way the board stays."""
        marks = [verdict.index for verdict in self.marked()]
        if self.at is None:
            found = marks[-1:] if delta < 0 else marks[:1]
        else:
            at = self.at
            found = [i for i in marks if i < at][-1:] if delta < 0 else [i for i in marks if i > at][:1]
        if found:
            self.at = found[0]

    def first(self) -> None:
        """Home: stand at the first marked move (at the end if there is none)."""
        marks = self.marked()
        self.at = marks[0].index if marks else None

    def step_moves(self, delta: int) -> None:
        """↑/↓, PgUp/PgDn: stand ``delta`` moves back or on, any move of either player (from the
        end, back from the last move; on past the last move is the end)."""
        if self.game is None or not self.game.moves:
            return
        last = len(self.game.moves) - 1
        at = last if self.at is None else self.at
        self.at = max(0, at + delta) if at + delta < last else None

    def shown(self) -> Verdict | None:
        """The marked move the board stands at, if it stands at one."""
        return next((verdict for verdict in self.marked() if verdict.index == self.at), None)
