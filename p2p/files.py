"""Files written so that a crash leaves the old version or the new one, read only when they are
what they claim to be, and held by one program at a time."""

from __future__ import annotations

import contextlib
import os
import stat
import sys
from pathlib import Path
from typing import BinaryIO


def write_atomically(path: Path, data: bytes, mode: int = 0o644, exclusive: bool = False) -> None:
    """Write ``data`` to ``path`` so that a crash leaves the old file or the new, never half of one.

    ``exclusive``: never replace an existing ``path`` (:class:`FileExistsError` instead), so that
    of two programs creating it at once, one wins and the other can read what it wrote.
    """
    import tempfile  # here, not at the top: every start reads the config through this module

    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        os.chmod(temp, mode)
        if exclusive:
            os.link(temp, path)  # fails if path exists; the file appears whole
            os.unlink(temp)
        else:
            os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    _sync_directory(path.parent)


def _sync_directory(directory: Path) -> None:
    """Make a rename or link in ``directory`` survive a power cut (POSIX; elsewhere a no-op)."""
    if os.name != "posix":
        return
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def read_regular(path: Path, limit: int) -> bytes:
    """The bytes of ``path``, a regular file of at most ``limit`` bytes; :class:`OSError` otherwise
    (a named pipe is not waited on for a writer, a device such as /dev/zero not read for ever)."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise OSError("not a regular file")
    with os.fdopen(fd, "rb") as file:
        data = file.read(limit + 1)
    if len(data) > limit:
        raise OSError(f"larger than any match record ({limit} bytes)")
    return data


def hold(path: Path) -> BinaryIO | None:
    """``path`` opened (made if need be) and locked for this process alone, until the file is
    closed or the process ends however it ends (an ``flock``; a ``msvcrt`` lock on Windows), so a
    crashed program never leaves a stale lock; ``None`` when another holds it. Raises
    :class:`OSError` when it cannot be opened. A holder may remove the file as it lets go
    (:func:`let_go`): a lock won on a file no longer at ``path`` is given up and taken again."""
    path.parent.mkdir(parents=True, exist_ok=True)
    for _ in range(_HOLD_TRIES):
        file = path.open("ab")
        try:
            _lock(file)
        except OSError:
            file.close()
            return None
        if _still_at(file, path):
            return file
        file.close()  # the holder before us removed it between our open and our lock
    return None


_HOLD_TRIES = 8
"""How often :func:`hold` opens the lock file again after finding it removed under its lock."""


def _lock(file: BinaryIO) -> None:
    if sys.platform == "win32":
        import msvcrt

        msvcrt.locking(file.fileno(), msvcrt.LK_NBLCK, 1)
    else:
        import fcntl

        fcntl.flock(file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)


def _still_at(file: BinaryIO, path: Path) -> bool:
    """Whether the open ``file`` is still the one at ``path`` (not removed or replaced)."""
    try:
        return os.path.samestat(os.fstat(file.fileno()), path.stat())
    except FileNotFoundError:
        return False


def let_go(file: BinaryIO, path: Path) -> None:
    """Give up the lock :func:`hold` took on ``path``, removing the file first (while still
    holding it), so that finished matches leave no lock files behind; a program that opened it
    meanwhile finds it gone and takes a fresh one."""
    if sys.platform != "win32":  # an open file cannot be removed there: it stays, harmless
        with contextlib.suppress(OSError):
            path.unlink()
    file.close()
