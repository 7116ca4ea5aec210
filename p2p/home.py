"""Where a player's identity, known peers and match records live, and safe writes.

The directories are the game's own (``trumps``, shared with the offline game's
saves): ``$XDG_CONFIG_HOME/trumps`` and ``$XDG_DATA_HOME/trumps`` when those
variables are set, on every platform, otherwise what platformdirs gives. So two
peers on one machine (tests, bot duels) each get their own home by setting them.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import NamedTuple

APP = "trumps"


class Home(NamedTuple):
    """The config directory (identity key, known peers) and the data directory (records)."""

    config: Path
    data: Path

    @classmethod
    def default(cls) -> Home:
        """The user's directories (see the module docs)."""
        return cls(
            _user_dir("XDG_CONFIG_HOME", "user_config_path"), _user_dir("XDG_DATA_HOME", "user_data_path")
        )

    @property
    def identity_file(self) -> Path:
        """The long-term Ed25519 private key (raw 32 bytes, mode 0600)."""
        return self.config / "identity.key"

    @property
    def peers_file(self) -> Path:
        """Known peers: name → identity key (trust on first use)."""
        return self.config / "known_peers.json"

    @property
    def records(self) -> Path:
        """The directory of signed match records."""
        return self.data / "matches"


def _user_dir(variable: str, platform_function: str) -> Path:
    base = os.environ.get(variable)
    if base and os.path.isabs(base):
        return Path(base) / APP
    import platformdirs

    path: Path = getattr(platformdirs, platform_function)(APP, appauthor=False)
    return path


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
