"""The chat and the connection status, as the opponent reports them (see
:class:`cli.app.opponent.Table`): a list of lines the layout shows the end of, and one
status slot that chat never overwrites.

>>> log = ChatLog()
>>> log.add("Bob: hello"); log.add("Bob: good luck")
>>> log.last(1), log.last(5)
(['Bob: good luck'], ['Bob: hello', 'Bob: good luck'])
"""

from __future__ import annotations

CHAT_KEPT = 100
"""Chat lines kept for the chat history."""


class ChatLog:
    """The chat so far (and notes about the opponent), oldest first, and the connection status."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.status = ""
        """The connection status (empty: nothing to report)."""

    def add(self, text: str) -> None:
        """One more chat line; the oldest go beyond :data:`CHAT_KEPT`."""
        self.lines.append(text)
        del self.lines[:-CHAT_KEPT]

    def last(self, count: int) -> list[str]:
        """The last ``count`` lines, oldest first."""
        return self.lines[-count:] if count > 0 else []
