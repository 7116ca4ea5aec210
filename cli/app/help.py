"""The help screen: the rules in brief, how to enter moves, and every key.

Paragraphs are wrapped to the screen's width by terminal cells
(:func:`~cli.app.widths.cell_width`), so a translation needs no line breaks of its own.
"""

from __future__ import annotations

from prompt_toolkit.formatted_text import StyleAndTextTuples

from cli.app.board import pad
from cli.app.cards import face_letters
from cli.app.keys import COMMAND_KEYS, key_label
from cli.app.widths import cell_width, wrap
from cli.i18n import N_, _
from engine import Rules

_RULES = (
    N_("36 cards, 6 to ace, all dealt: 18 each, so every card is known."),
    N_(
        "Each player has their own trump suit. Your trumps beat other suits, but only on your turn; "
        "on your opponent's turn your trump suit is an ordinary suit."
    ),
    N_(
        "Empty pile: lay any card. Otherwise beat the top card (a higher card of its suit, or one of "
        "your trumps on a non-trump) and lay any card on top of it, or take: 3 cards, 5 if the top "
        "card is your trump, the whole pile if it is the ace of your trump."
    ),
    N_(
        "Taking ends your turn: the cards go to your hand, and your opponent faces the card now on "
        "top of the pile, as if it had just been played (on an empty pile they lay any card)."
    ),
    N_(
        "The first player out of cards wins, unless the other's single last card beats the top card: "
        "then it is a draw. So is a position seen for the third time, and a game of {max_moves} moves."
    ),
    N_("A match: the loser deals the next game; after a draw the deal passes."),
)

_MOVES = (
    N_("Type a move and press Enter: ks 6h, K♠,6♥, 10d, take (any case)."),
    N_("Tab fills in a legal move, again for the next: Tab then Enter always plays."),
    N_("Or type the numbers under your cards: 3 7 (beat with 3, then lay 7)."),
    N_("Or ←/→ to highlight a card (↑/↓: the next playable one) and Enter to pick it."),
    N_("Or click your cards; click the pile to take. When nothing beats, Enter takes."),
    N_('Esc drops a half-made move. A line starting with " is sent as chat.'),
)
KEY_WIDTH = 14
"""Cells for the keys column of the help."""


def help_title(width: int = 80) -> list[StyleAndTextTuples]:
    """The help screen's title and how to leave it, in lines of ``width`` cells: the rows that stay
    while the text under them scrolls."""
    title, leave = _("Your trumps: help"), _("(any other key returns to the game)")
    if cell_width(f"{title}   {leave}") <= width:
        return [[("class:help.heading", title), ("class:muted", "   " + leave)]]
    lines: list[StyleAndTextTuples] = [[("class:help.heading", line)] for line in wrap(title, width)]
    return lines + [[("class:muted", line)] for line in wrap(leave, width)]


def help_lines(rules: Rules, width: int = 80) -> list[StyleAndTextTuples]:
    """The help text under the title for a screen ``width`` cells wide, one fragment list a line."""
    pickup = (
        _("You may take only when nothing of yours beats the top card (forced pick-up).")
        if rules.pickup == "forced"
        else _("You may take even when you could beat (voluntary pick-up).")
    )
    sixes = (
        _(
            "After the deal a player who holds the six of the other's trump suit gives it to them, so "
            "hands may start with 17 and 19 cards instead of 18 each."
        )
        if rules.sixes
        else _("The sixes stay where they were dealt (--no-sixes).")
    )
    lines: list[StyleAndTextTuples] = [[("class:help.heading", _("Keys"))]]
    text_width = width - 3 - KEY_WIDTH
    keyed = [(" ".join(key_label(k) for k in command.keys), _(command.help)) for command in COMMAND_KEYS]
    keyed += [
        ("↑ ↓ PgUp PgDn", _("scroll this help")),
        ("Home End", _("the top or the end of this help")),
        ("PgUp PgDn", _("in the game: scroll the chat back and on")),
        ("^L", _("redraw the whole screen")),
    ]
    for keys, what in keyed:
        for i, line in enumerate(wrap(what, text_width)):
            lines.append(
                [("class:help.key", "  " + pad(keys if i == 0 else "", KEY_WIDTH)), ("class:help", line)]
            )
    moves = [_(line) for line in _MOVES]
    if face_letters() != "JQKA":
        moves.append(
            _("Cards show the ranks {letters}; type them or J Q K A, and 10 or T for the ten.").format(
                letters=" ".join(face_letters())
            )
        )
    rules_text = [_(paragraph).format(max_moves=rules.max_moves) for paragraph in _RULES] + [pickup, sixes]
    for heading, paragraphs in ((_("Moves"), moves), (_("The game"), rules_text)):
        lines += [[], [("class:help.heading", heading)]]
        for paragraph in paragraphs:
            lines += [[("class:help", "  " + line)] for line in wrap(paragraph, width - 3)]
    return lines
