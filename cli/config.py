"""Remembered choices: ``<config dir>/config.json`` (last trump suit, language, hand shown or hidden).

Every start of ``trumps`` reads it (the language), so this module imports little:
``trumps --help`` must answer fast.
"""

from __future__ import annotations

import json
from pathlib import Path

from cli.home import Home
from p2p.files import write_atomically

_CONFIG = "config.json"


def config_dir() -> Path:
    """The user config directory (remembered choices)."""
    return Home.default().config


def load_config() -> dict[str, str]:
    """The remembered choices; an unreadable file counts as none (it is rewritten on the next save)."""
    path = config_dir() / _CONFIG
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(raw, dict):
        return {}
    return {str(k): v for k, v in raw.items() if isinstance(v, str)}


def save_config(**changes: str) -> None:
    """Remember some choices, keeping the others."""
    text = json.dumps(load_config() | changes, indent=1) + "\n"
    write_atomically(config_dir() / _CONFIG, text.encode("utf-8"))
