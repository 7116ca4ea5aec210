"""Where a player's identity, known peers, match records and saved games live.

The directories are the game's own (``trumps``, shared with the offline game's
saves): ``$XDG_CONFIG_HOME/trumps`` and ``$XDG_DATA_HOME/trumps`` when those
variables are set, on every platform, otherwise what platformdirs gives. So two
peers on one machine (tests, bot duels) each get their own home by setting them.
The network protocol (:mod:`p2p`) knows none of this: it is handed the files.
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

    @property
    def unfinished(self) -> Path:
        """The directory of what unfinished matches need to continue after a restart (``p2p.saved``)."""
        return self.data / "unfinished"


def _user_dir(variable: str, platform_function: str) -> Path:
    base = os.environ.get(variable)
    if base and os.path.isabs(base):
        return Path(base) / APP
    import platformdirs

    path: Path = getattr(platformdirs, platform_function)(APP, appauthor=False)
    return path
