"""Whether the help screen is open and how far it is scrolled (the text is :mod:`cli.app.help`'s)."""

from __future__ import annotations


class HelpView:
    """Whether the help screen is open, and how far it is scrolled (the layout keeps it within the text)."""

    def __init__(self) -> None:
        self.open = False
        self.top = 0

    def toggle(self) -> None:
        """Open or close the help screen, at its top."""
        self.open = not self.open
        self.top = 0

    def scroll(self, lines: int) -> None:
        """Scroll by ``lines`` (negative: up)."""
        self.top = max(0, self.top + lines)
