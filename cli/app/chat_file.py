"""The chat a restart-safe duel keeps on disk beside its saved match, so that a restarted screen
shows it again (``NAME.chat``: one JSON string a line, readable by this user only)."""

from __future__ import annotations

import contextlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

from cli.app.chat import CHAT_KEPT


@dataclass(frozen=True)
class ChatFile:
    """The chat file of the saved match at ``saved``'s path. The chat is a nicety: a file that
    cannot be written or read loses the chat, never the match."""

    path: Path

    @classmethod
    def beside(cls, saved: Path) -> ChatFile:
        """The chat log of the saved match kept in ``saved``."""
        return cls(saved.with_name(saved.name + ".chat"))

    def add(self, line: str) -> None:
        """Keep ``line``, as the screen shows it."""
        with contextlib.suppress(OSError, ValueError):
            descriptor = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            with os.fdopen(descriptor, "a", encoding="utf-8") as file:
                file.write(json.dumps(line) + "\n")

    def kept(self) -> list[str]:
        """The chat of the match being continued, as the stopped screen showed it (its last
        :data:`~cli.app.chat.CHAT_KEPT` lines)."""
        try:
            lines = [json.loads(line) for line in self.path.read_text(encoding="utf-8").splitlines()]
        except (OSError, ValueError):
            return []
        return [line for line in lines if isinstance(line, str)][-CHAT_KEPT:]

    def drop(self) -> None:
        """Forget the chat: its match is over, or a new one begins."""
        with contextlib.suppress(OSError):
            self.path.unlink(missing_ok=True)
