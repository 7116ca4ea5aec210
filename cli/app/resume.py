"""Reading back the unfinished game that ``trumps`` offers to continue, and the game record of
the game a restarted duel continues."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path

from cli import storage
from cli.app.ai_opponent import AIOpponent
from cli.app.opponent import Opponent
from cli.app.score import MatchScore
from cli.i18n import _
from cli.record_words import unreadable_record
from engine import Game, RecordError


@dataclass
class SavedGame:
    """An unfinished game against the AI to continue, with its match and the AI."""

    game: Game
    match: MatchScore
    path: Path
    opponent: Opponent
    me: int = 0
    number: int = 1
    """The game's number among those ``opponent`` dealt (what its next ``deal`` counts on from)."""


def load_unfinished() -> tuple[SavedGame | None, str]:
    """The unfinished game against the AI, if any, and why it could not be read (``""``: it
    could, or there is none).

    A damaged note or record is forgotten so that the question does not come
    back (a note that cannot be removed, a directory in its place, stays and is
    reported again); the record itself stays in the history. Call it only while holding
    :func:`cli.storage.lock_unfinished`.
    """
    try:
        saved = storage.load_unfinished()
        if saved is None:
            return None, ""
        game = _dealt_record(saved.path)
    except storage.StorageError as exc:
        _forget_note()
        return None, str(exc)
    if game.result is not None:
        _forget_note()
        return None, ""
    match = MatchScore(
        saved.games, saved.me, saved.played, list(saved.halves), earlier=saved.earlier, matches=saved.matches
    )
    return SavedGame(game, match, saved.path, AIOpponent(saved.level), saved.me), ""


def _dealt_record(path: Path) -> Game:
    """The game of the record ``path``, which must name its deal; :class:`cli.storage.StorageError`
    says why it cannot be read (naming the file)."""
    try:
        game = Game.from_record(storage.read_text(path))
    except RecordError as exc:
        raise storage.StorageError(unreadable_record(path, exc)) from None
    if "Seed" not in game.headers:  # the engine checks Dealer and Trumps against the seed only
        raise storage.StorageError(
            _("{file} is damaged: {error}").format(
                file=path, error=_("the record does not name its deal (Seed, Dealer, Trumps)")
            )
        )
    return game


def _forget_note() -> None:
    """Forget the unfinished-game note, if it can be removed."""
    with contextlib.suppress(OSError):
        storage.clear_unfinished()


def interrupted_record(game: Game, since: str) -> tuple[Path, dict[str, str]]:
    """The game record the screen kept of ``game`` before its program stopped, for a continued
    duel to go on writing (so that the history lists the game once), and the headers it was
    written with: the newest unfinished record of the same deal among those made from ``since``
    on (a match record's time, ``20261130T101500Z``); a fresh name and no headers when there
    is none."""
    for path in reversed(storage.record_paths()):
        if path.name[:20].replace("-", "") < since:
            break  # older than the match: the game cannot be there
        try:
            kept = Game.from_record(storage.read_text(path))
        except (storage.StorageError, RecordError):
            continue
        if kept.start == game.start and kept.result is None:
            return path, dict(kept.headers)
    return storage.new_record_path(), {}
