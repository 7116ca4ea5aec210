"""Colours: cards as light chips, red and black suits (or four colours), muted chrome.

Rules later in the list win over earlier ones, so the states of a card
(playable, not playable, highlighted) come after the suit colours.
"""

from __future__ import annotations

from prompt_toolkit.styles import Style

_TWO_COLOURS = [("suit-s", "#000000"), ("suit-h", "#c00000"), ("suit-d", "#c00000"), ("suit-c", "#000000")]
_FOUR_COLOURS = [("suit-s", "#000000"), ("suit-h", "#c00000"), ("suit-d", "#0040d0"), ("suit-c", "#007000")]

_BEFORE_SUITS = [
    ("title", "bg:#005f5f #ffffff"),
    ("title.name", "bold"),
    ("rule", "#4e8a6e"),
    ("rule.label", "#d0d0d0 bold"),
    ("muted", "#8a8a8a"),
    ("card", "bg:#dadada"),
]
_AFTER_SUITS = [
    ("card.under", "bg:#c6c6c6"),
    ("card.top", "bg:#ffffff bold"),
    ("card.back", "bg:#30508a #7090c0"),
    ("card.legal", "bg:#ffffff bold"),
    ("card.dim", "bg:#767676"),
    ("card.trump", "underline"),
    ("card.picked", "bg:#ffd75f"),
    ("card.cursor", "reverse"),
    ("number", "#d0d0d0"),
    ("number.dim", "#5f5f5f"),
    ("turn", "bold"),
    ("turn.mine", "#87d787 bold"),
    ("thinking", "#d7af5f"),
    ("result", "#ffd75f bold"),
    ("history", "#bcbcbc"),
    ("history.latest", "#ffffff bold"),
    ("history.player0", "#87afd7"),
    ("history.player1", "#d7af87"),
    ("message", "#d0d0d0"),
    ("message.error", "#ff5f5f bold"),
    ("chat", "#87afd7 italic"),
    ("connection", "#ffaf5f"),
    ("question", "#ffd75f bold"),
    ("choice", "#d0d0d0"),
    ("choice.current", "bg:#ffd75f #000000 bold"),
    ("prompt", "#87d787 bold"),
    ("keybar", "bg:#262626 #bcbcbc"),
    ("keybar.key", "bg:#4e8a6e #ffffff bold"),
    ("help", "#d0d0d0"),
    ("help.heading", "#ffd75f bold"),
    ("help.key", "#87d787 bold"),
    ("small", "#ffd75f bold"),
]


def game_style(four_color: bool = False) -> Style:
    """The style of the game and the replay viewer."""
    suits = _FOUR_COLOURS if four_color else _TWO_COLOURS
    return Style(_BEFORE_SUITS + suits + _AFTER_SUITS)
