"""A stand-in for the screen's side of the opponent interface, for tests."""

from __future__ import annotations

from cli.app.opponent import OpponentLeft


class Notes:
    """A :class:`cli.app.opponent.Table` that writes down what the opponent shows."""

    def __init__(self) -> None:
        self.chats: list[str] = []
        self.statuses: list[str] = []
        self.offers: list[str | None] = []
        self.ended: list[OpponentLeft] = []

    def chat(self, text: str) -> None:
        self.chats.append(text)

    def status(self, text: str) -> None:
        self.statuses.append(text)

    def offer_claim(self, why: str | None) -> None:
        self.offers.append(why)

    def end(self, reason: OpponentLeft) -> None:
        self.ended.append(reason)
