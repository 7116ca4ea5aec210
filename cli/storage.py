"""Where the game keeps its files, and how it writes them without ever half-writing one.

- Game records: ``<data dir>/games/*.txt``, one per game, in the engine's
  record format (``Game.to_record``), rewritten after every move.
- ``<data dir>/unfinished.json``: which record holds the game to resume, and
  its match (only for games against the AI).
- ``<data dir>/unfinished.lock``: locked (``flock``; ``msvcrt.locking`` on
  Windows) by the one window that may
  offer, continue and save the unfinished game; the others play games that
  are not resumable, so that two windows never share one save.
- Remembered choices are :mod:`cli.config`'s.

The data dir is ``$XDG_DATA_HOME/trumps`` and the config dir
``$XDG_CONFIG_HOME/trumps`` when those variables are set, otherwise what
platformdirs gives for the platform (``~/.local/share/trumps``, ...): the same
:class:`cli.home.Home` the network game keeps its identity and records in.
"""

from __future__ import annotations

import json
import os
import re
import stat
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, BinaryIO

from cli.home import Home
from cli.i18n import N_, _
from cli.options import MAX_GAMES
from engine.ai import LEVELS
from p2p.files import write_atomically

_UNFINISHED = "unfinished.json"
_LOCK = "unfinished.lock"


class StorageError(ValueError):
    """A saved file that cannot be read back; the message names the file and the reason."""


def data_dir() -> Path:
    """The user data directory (game records)."""
    return Home.default().data


def games_dir() -> Path:
    """The directory of game records."""
    return data_dir() / "games"


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` so that a crash leaves the old file or the new one, never half of one."""
    write_atomically(path, text.encode("utf-8"))


def new_record_path(now: datetime | None = None) -> Path:
    """A fresh file name for a game record, by date: ``games/2026-11-30T10-02-11Z.txt``."""
    stamp = (now or datetime.now(UTC)).strftime("%Y-%m-%dT%H-%M-%SZ")
    folder = games_dir()
    path = folder / f"{stamp}.txt"
    number = 2
    while path.exists():
        path = folder / f"{stamp}-{number}.txt"
        number += 1
    return path


def record_paths() -> list[Path]:
    """Every saved game record, oldest first."""
    folder = games_dir()
    if not os.path.isdir(folder):  # unlike Path.is_dir, False where a folder cannot be searched
        return []
    return sorted((p for p in folder.glob("*.txt") if not p.name.startswith(".")), key=_record_order)


def _record_order(path: Path) -> tuple[str, int]:
    """Names sort by date, and ``…Z-2.txt`` (a second game in the same second) after ``…Z.txt``."""
    base, _, number = path.stem.rpartition("-")
    if base.endswith("Z") and re.fullmatch("[0-9]{1,9}", number):
        return base, int(number)
    return path.stem, 1


def read_text(path: Path) -> str:
    """A saved text file, with a :class:`StorageError` that says what went wrong.

    Only a regular file is read: a named pipe among the records would keep the reader waiting
    for a writer for ever (``trumps history`` opens every record it lists)."""
    try:
        regular = stat.S_ISREG(path.stat().st_mode)
        text = path.read_text(encoding="utf-8") if regular else None
    except (OSError, ValueError) as exc:
        raise StorageError(unreadable_words(path, exc)) from None
    if text is None:
        raise StorageError(_("cannot read {file}: not a regular file").format(file=path))
    return text


def unreadable_words(path: Path, error: OSError | ValueError) -> str:
    """Why the file ``path`` cannot be read, in one sentence naming it (never the system's own
    ``[Errno 2] …: 'x'`` repeating the name, nor a codec's message)."""
    if isinstance(error, FileNotFoundError):
        return _("there is no file {file}").format(file=path)
    if isinstance(error, IsADirectoryError):
        return _("{file} is a folder, not a file").format(file=path)
    if isinstance(error, PermissionError):
        return _("cannot read {file}: you have no permission to").format(file=path)
    if isinstance(error, UnicodeDecodeError):
        return _("{file} is not a saved game: it is not text").format(file=path)
    if isinstance(error, ValueError):  # a name (from a file) with a NUL or a lone surrogate
        return _("{file!r} cannot be the name of a file").format(file=str(path))
    return _("cannot read {file}: {error}").format(file=path, error=error.strerror or error)


@dataclass(frozen=True)
class Unfinished:
    """The game to offer at the next start: its record and its match so far."""

    record: str
    """The record's file name in :func:`games_dir`."""
    level: str
    games: int
    played: int
    halves: tuple[int, int]
    me: int = 0
    earlier: tuple[int, int] = (0, 0)
    """The seats' half points from the session's earlier matches ("Play again?"): the running
    score the screen showed (left out by older notes: none)."""
    matches: int = 0
    """How many matches the session played before this one."""

    @property
    def path(self) -> Path:
        """The record file."""
        return games_dir() / self.record


class UnfinishedLock:
    """This process's hold on the unfinished game: while one window holds it, no other
    offers, continues or overwrites that game.

    The lock is :func:`p2p.files.hold` on ``unfinished.lock``: the system drops it when the
    process ends however it ends, so a crashed window never leaves a stale lock behind.
    """

    def __init__(self, file: BinaryIO) -> None:
        self._file = file

    def release(self) -> None:
        """Let another window have the unfinished game."""
        self._file.close()


def lock_unfinished() -> UnfinishedLock | None:
    """Hold the unfinished game for this window; ``None`` when another window holds it (or the
    data directory cannot be written: then nothing can be saved for resuming anyway)."""
    from p2p.files import hold

    try:
        file = hold(data_dir() / _LOCK)
    except OSError:
        return None
    return None if file is None else UnfinishedLock(file)


def save_unfinished(unfinished: Unfinished) -> None:
    """Remember the game to offer at the next start."""
    write_atomic(data_dir() / _UNFINISHED, json.dumps(asdict(unfinished), indent=1) + "\n")


def clear_unfinished() -> None:
    """Nothing left to resume."""
    (data_dir() / _UNFINISHED).unlink(missing_ok=True)


def load_unfinished() -> Unfinished | None:
    """The game to resume, if any; :class:`StorageError` when the note is unreadable."""
    path = data_dir() / _UNFINISHED
    if not os.path.exists(path):  # unlike Path.exists, False where a folder cannot be searched
        return None
    try:
        raw = json.loads(read_text(path))
        games = _whole(raw, "games", 1, MAX_GAMES)
        played = _whole(raw, "played", 0, games - 1)
        halves = _field(raw, "halves", list)
        if len(halves) != 2:
            raise ValueError(_("'halves' should hold two scores, not {value!r}").format(value=halves))
        unfinished = Unfinished(
            record=_field(raw, "record", str),
            level=_level(_field(raw, "level", str)),
            games=games,
            played=played,
            halves=(_whole(halves, 0, 0, 2 * played), _whole(halves, 1, 0, 2 * played)),
            me=_whole(raw, "me", 0, 1),
            **_session_so_far(raw),
        )
    except json.JSONDecodeError as exc:
        message = _("{file} is damaged: it is not JSON (line {line}, column {column})")
        raise StorageError(message.format(file=path, line=exc.lineno, column=exc.colno)) from None
    except KeyError as exc:
        raise StorageError(_("{file} is damaged: {key} is missing").format(file=path, key=exc)) from None
    except (ValueError, TypeError, IndexError, RecursionError) as exc:  # RecursionError: nested too deep
        raise StorageError(_("{file} is damaged: {error}").format(file=path, error=exc)) from None
    if "/" in unfinished.record or "\\" in unfinished.record or unfinished.record.startswith("."):
        raise StorageError(
            _("{file} names no game record: {record!r}").format(file=path, record=unfinished.record)
        )
    return unfinished


_KINDS = {int: N_("a whole number"), str: N_("text"), list: N_("a list")}


def _field(raw: Any, key: str | int, kind: type) -> Any:
    if type(raw) not in (dict, list):
        raise ValueError(_("it holds {value!r} instead of the game's details").format(value=raw))
    value = raw[key]
    if type(value) is not kind:
        raise ValueError(
            _("{key!r} should be {kind}, not {value!r}").format(key=key, kind=_(_KINDS[kind]), value=value)
        )
    return value


def _whole(raw: Any, key: str | int, low: int, high: int) -> int:
    value: int = _field(raw, key, int)
    if not low <= value <= high:
        raise ValueError(
            _("{key!r} should be a whole number from {low} to {high}, not {value!r}").format(
                key=key, low=low, high=high, value=value
            )
        )
    return value


_MOST_SESSION_HALVES = 10**6
"""More half points than a session of games ever scores (a bound for a damaged note)."""


def _session_so_far(raw: Any) -> dict[str, Any]:
    """The note's ``earlier`` and ``matches``, where it has them (older notes do not)."""
    found: dict[str, Any] = {}
    if "earlier" in raw:
        earlier = _field(raw, "earlier", list)
        if len(earlier) != 2:
            raise ValueError(_("'earlier' should hold two scores, not {value!r}").format(value=earlier))
        found["earlier"] = tuple(_whole(earlier, seat, 0, _MOST_SESSION_HALVES) for seat in (0, 1))
    if "matches" in raw:
        found["matches"] = _whole(raw, "matches", 0, _MOST_SESSION_HALVES)
    return found


def _level(level: str) -> str:
    if level not in LEVELS:
        raise ValueError(
            _("unknown level {level!r}: choose one of {levels}").format(level=level, levels=", ".join(LEVELS))
        )
    return level
