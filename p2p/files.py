"""Writing files so that a crash leaves the old version or the new one, never half of one."""

from __future__ import annotations

import os
from pathlib import Path


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
