"""Colours: cards as light chips, red and black suits (or four colours), muted chrome.

Every card, in every state (playable, not playable, picked, highlighted, on the
pile), meets the WCAG AA contrast of 4.5:1 between its letters and its chip, in
256 colours and in 16 (``tests/test_cli_style.py`` computes the ratios from the
bytes written). The colours are taken from the 256-colour palette, so 24-bit
and 256-colour terminals show the same. Cards that cannot be played sit on a
greyer chip in darker ink (the standard theme) or on a black chip in light ink
(``high-contrast``). Without colour (``NO_COLOR``, which prompt_toolkit
honours) playable cards are bold, picked ones italic and the highlight reversed.

Rules later in the list win over earlier ones, so the states of a card come
after the suit colours.
"""

from __future__ import annotations

from dataclasses import dataclass

from prompt_toolkit.output import ColorDepth
from prompt_toolkit.styles import Style

from engine.cards import SUITS


@dataclass(frozen=True)
class Theme:
    """The colours of the cards: chips (backgrounds) by state, suit inks (S H D C) by state."""

    plain: str
    """A card shown without a state (the opponent's hand, the replay, a trump label)."""
    playable: str
    unplayable: str
    under: str
    """Pile cards under the top one."""
    picked: str
    inks: tuple[str, str, str, str]
    unplayable_inks: tuple[str, str, str, str]
    four_inks: tuple[str, str, str, str]
    four_unplayable_inks: tuple[str, str, str, str]
    back: str


THEMES = {
    "standard": Theme(
        plain="#e4e4e4",
        playable="#ffffff",
        unplayable="#c6c6c6",
        under="#d0d0d0",
        picked="#ffd75f",
        inks=("#000000", "#af0000", "#af0000", "#000000"),
        unplayable_inks=("#000000", "#870000", "#870000", "#000000"),
        four_inks=("#000000", "#af0000", "#0000d7", "#005f00"),
        four_unplayable_inks=("#000000", "#870000", "#00005f", "#005f00"),
        back="bg:#005f87 #afd7ff",
    ),
    "high-contrast": Theme(
        plain="#ffffff",
        playable="#ffffff",
        unplayable="#000000",
        under="#ffffff",
        picked="#ffffaf",
        inks=("#000000", "#af0000", "#af0000", "#000000"),
        unplayable_inks=("#ffffff", "#ff5f5f", "#ff5f5f", "#ffffff"),
        four_inks=("#000000", "#af0000", "#0000d7", "#005f00"),
        four_unplayable_inks=("#ffffff", "#ff5f5f", "#5fafff", "#5fd75f"),
        back="bg:#000000 #ffffff",
    ),
}
"""The card themes by name (``--theme``); the first is the default."""

_CHROME = [
    ("title", "bg:#005f5f #ffffff"),
    ("title.name", "bold"),
    ("rule", "#5f8787"),
    ("rule.label", "#d0d0d0 bold"),
    ("muted", "#8a8a8a"),
    ("number", "#d0d0d0"),
    ("number.dim", "#6c6c6c"),
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
    ("verdict.estimate", "#ffaf5f"),
    ("chat", "#87afd7 italic"),
    ("chat.old", "#6c8ca8 italic"),
    ("connection", "#ffaf5f"),
    ("question", "#ffd75f bold"),
    ("choice", "#d0d0d0"),
    ("choice.current", "bg:#ffd75f #000000 bold"),
    ("prompt", "#87d787 bold"),
    ("keybar", "bg:#262626 #bcbcbc"),
    ("keybar.key", "bg:#5f8787 #ffffff bold"),
    ("help", "#d0d0d0"),
    ("help.heading", "#ffd75f bold"),
    ("help.key", "#87d787 bold"),
    ("small", "#ffd75f bold"),
]


def card_rules(theme: Theme, four_color: bool, color_depth: ColorDepth) -> list[tuple[str, str]]:
    """The style rules of the cards: chip by state, ink by suit and state.

    In 16 colours no ANSI green is dark enough to read on a light chip, so the
    four-colour deck shows clubs as the two-colour deck does there.
    """
    inks = theme.four_inks if four_color else theme.inks
    dim_inks = theme.four_unplayable_inks if four_color else theme.unplayable_inks
    if four_color and color_depth == ColorDepth.DEPTH_4_BIT:
        inks, dim_inks = (*inks[:3], theme.inks[3]), (*dim_inks[:3], theme.unplayable_inks[3])
    rules = [("card", f"bg:{theme.plain}")]
    rules += [(f"suit-{suit.lower()}", ink) for suit, ink in zip(SUITS, inks, strict=True)]
    rules += [
        ("card.under", f"bg:{theme.under}"),
        ("card.top", f"bg:{theme.playable} bold"),
        ("card.back", theme.back),
        ("card.legal", f"bg:{theme.playable} bold"),
        ("card.dim", f"bg:{theme.unplayable} nobold"),
    ]
    rules += [(f"card.dim suit-{suit.lower()}", ink) for suit, ink in zip(SUITS, dim_inks, strict=True)]
    rules += [("card.trump", "underline"), ("card.picked", f"bg:{theme.picked} italic")]
    rules += [(f"card.picked suit-{suit.lower()}", ink) for suit, ink in zip(SUITS, inks, strict=True)]
    rules.append(("highlight", "reverse"))  # not a "card." class: that would bring back the plain chip
    return rules


def game_style(
    four_color: bool = False, theme: str = "standard", color_depth: ColorDepth = ColorDepth.DEPTH_8_BIT
) -> Style:
    """The style of the game and the replay viewer, for a terminal of ``color_depth``."""
    return Style(_CHROME + card_rules(THEMES[theme], four_color, color_depth))
