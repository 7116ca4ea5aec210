"""What one side's duel keeps on disk: the record of its match and, when the duel is restart-safe,
the saved match (docs/protocol.md, "Records", "Restarts").

:class:`DuelFiles` carries out the machine's file actions (:class:`~p2p.duel_machine.Record`,
:class:`~p2p.duel_machine.Keep`, :class:`~p2p.duel_machine.Touch`) and the driver's ends: a match
over (saved with its end note; nothing left to continue), paused (synced, the saved match kept),
or a local failure (what was played is kept).
"""

from __future__ import annotations

import contextlib
from pathlib import Path

from p2p.duel_machine import Keep, Record, Touch
from p2p.handshake import Session
from p2p.match import Match, rematch_of
from p2p.record import RecordWriter
from p2p.saved import SavedMatch


class DuelFiles:
    """The record being written for one match, and the saved match of a restart-safe duel."""

    def __init__(self, writer: RecordWriter, saved: SavedMatch | None = None, fresh: bool = False) -> None:
        """``fresh``: ``saved`` is a new match's, not yet on disk (:meth:`begin` writes it)."""
        self.writer, self.saved, self._unsaved = writer, saved, fresh and saved is not None

    @classmethod
    def open(
        cls,
        records: Path,
        session: Session,
        saved: SavedMatch | None = None,
        previous: Match | None = None,
        restored: Match | None = None,
    ) -> tuple[DuelFiles, Match]:
        """The files of a new match of ``session`` (a rematch of ``previous``), its record in
        ``records``, and that match; or, with ``restored`` (read back from ``saved`` after a
        restart), that match's files, its record appended to where it stopped. Nothing is written
        yet."""
        terms = session.terms
        if restored is not None:
            assert saved is not None and saved.record is not None
            return cls(RecordWriter.continuing(saved.record, session, restored), saved), restored
        if previous is None:
            match = Match(session.session_id, session.keys, terms.rules, terms.games)
        else:
            root, dealer = rematch_of(previous, session.session_id)
            match = Match(root, session.keys, terms.rules, terms.games, dealer)
        return cls(RecordWriter(records, session, match, previous), saved, fresh=True), match

    def begin(self) -> None:
        """The match starts: a new restart-safe match is saved before its first link, so that a
        restart finds its record."""
        if self.saved is not None and self._unsaved:
            self.saved.record = self.path
            self.saved.write()
            self._unsaved = False

    @property
    def path(self) -> Path:
        """The record's file."""
        return self.writer.path

    def carry_out(self, action: Record | Keep | Touch, match: Match) -> None:
        """Record ``match``'s new link, keep a pledge, or touch the record."""
        if isinstance(action, Record):
            self.writer.append(match, sync=action.sync)
        elif isinstance(action, Keep):
            assert self.saved is not None, "a pledge is kept only in a restart-safe duel"
            self.saved.keep(action.game, action.pledge)
        else:
            self.writer.touch()

    def ended(self, match: Match, note: dict[str, object] | None = None) -> None:
        """The match is over: its record saved with its end ``note`` (none when complete), and
        nothing left to continue after a restart."""
        self.writer.save(match, note)
        self.writer.close()
        if self.saved is not None:
            self.saved.discard()

    def paused(self, match: Match) -> None:
        """This program stops but the match does not: the record synced with no end note, the
        saved match kept to continue."""
        self.writer.save(match)
        self.writer.close()

    def failed(self, match: Match, note: dict[str, object]) -> None:
        """This program failed: keep what was played, if the record itself still can be written."""
        with contextlib.suppress(OSError):  # the record itself may be what failed
            self.writer.save(match, note)

    def joiner_back_from(self, address: str) -> None:
        """The host's joiner came back from ``address``: a restart-safe host remembers it."""
        if self.saved is not None:
            self.saved.joiner_back_from(address)

    def for_rematch(self) -> SavedMatch | None:
        """What a rematch of this match keeps on disk, when this one was restart-safe."""
        return None if self.saved is None else self.saved.for_rematch()
