"""The chat and the connection status, as the opponent reports them (see
:class:`cli.app.opponent.Table`): a list of lines the layout shows the end of (or, scrolled
back, an earlier stretch), and one status slot that chat never overwrites.

>>> log = ChatLog()
>>> log.add("Bob: hello"); log.add("Bob: good luck")
>>> log.last(1), log.last(5)
(['Bob: good luck'], ['Bob: hello', 'Bob: good luck'])
>>> log.scroll(1); log.last(1), log.back
(['Bob: hello'], 1)
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
        self.back = 0
        """How many of the newest lines the view is scrolled back past (0: it shows the end)."""

    def add(self, text: str) -> None:
        """One more chat line; the oldest go beyond :data:`CHAT_KEPT`. A view scrolled back stays
        on the lines it shows."""
        self.lines.append(text)
        del self.lines[:-CHAT_KEPT]
        if self.back:
            self.scroll(1)

    def scroll(self, lines: int) -> None:
        """Scroll the view back (``lines`` > 0: older lines) or on, within the chat."""
        self.back = max(0, min(self.back + lines, len(self.lines) - 1))

    def last(self, count: int) -> list[str]:
        """The last ``count`` lines of the view, oldest first."""
        end = len(self.lines) - self.back
        return self.lines[max(0, end - count) : end] if count > 0 else []
