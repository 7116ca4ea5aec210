"""Saving the game in play: its record after every move, and the note that offers it again.

Only the window that holds :func:`cli.storage.lock_unfinished` keeps that note; a second
window's games are saved as records too, but are not offered for resuming, so that two
windows never share one save.
"""

from __future__ import annotations

from pathlib import Path

from cli import storage
from cli.app.score import MatchScore
from engine import Game


class Saver:
    """Writes one game's record (``path``) and, for a game that can be continued, the note."""

    def __init__(self, keeps_unfinished: bool) -> None:
        self.keeps_unfinished = keeps_unfinished
        """Whether this window holds the unfinished game (see :func:`cli.storage.lock_unfinished`)."""
        self.path: Path | None = None
        self._noted: storage.Unfinished | None = None
        """The note as last written by this window (``None`` once cleared): a move changes the
        record, not the note, which is then not written again (two fsyncs a move fewer)."""

    def new_game(self) -> Path:
        """A fresh record file for the game being dealt."""
        self.path = storage.new_record_path()
        return self.path

    def resumes(self, resume_as: str | None) -> bool:
        """Whether a game against an opponent rebuilt from ``resume_as`` is offered again after quitting."""
        return self.keeps_unfinished and resume_as is not None

    def save(
        self, game: Game, match: MatchScore, me: int, resume_as: str | None, finished: bool = False
    ) -> None:
        """Write the record; remember the game for resuming while it goes on (``OSError`` on failure)."""
        if self.path is None:
            return
        storage.write_atomic(self.path, game.to_record())
        if not self.resumes(resume_as):
            return
        assert resume_as is not None
        if finished or game.result is not None:
            self._noted = None
            storage.clear_unfinished()
            return
        note = storage.Unfinished(
            record=self.path.name,
            level=resume_as,
            games=match.games,
            played=match.played,
            halves=(match.halves[0], match.halves[1]),
            me=me,
            earlier=match.earlier,
            matches=match.matches,
        )
        if note != self._noted:  # a failed write leaves the old note, and is tried again
            storage.save_unfinished(note)
            self._noted = note

    def forget_unfinished(self) -> None:
        """The player declined the unfinished game: it stays in the history, no longer offered."""
        if self.keeps_unfinished:
            self._noted = None
            storage.clear_unfinished()
