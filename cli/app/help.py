"""The help screen: the rules in brief, how to enter moves, and every key."""

from __future__ import annotations

from prompt_toolkit.formatted_text import StyleAndTextTuples

from cli.app.keys import COMMAND_KEYS, key_label
from engine import Rules

_RULES = """\
36 cards, 6 to ace, all dealt: 18 each, so every card is known.
Each player has their own trump suit. Your trumps beat other suits, but only
on your turn; on your opponent's turn your trump suit is an ordinary suit.
Empty pile: lay any card. Otherwise beat the top card (a higher card of its
suit, or one of your trumps on a non-trump) and lay any card on top of it,
or take: 3 cards, 5 if the top card is your trump, the whole pile if it is
the ace of your trump.
The first player out of cards wins, unless the other's single last card beats
the top card: then it is a draw. So is a position seen for the third time,
and a game of {max_moves} moves.
A match: the loser deals the next game; after a draw the deal passes."""

_MOVES = """\
Type a move and press Enter: ks 6h, K♠,6♥, 10d, take (any case).
Tab fills in a legal move, again for the next: Tab then Enter always plays.
Or type the numbers under your cards: 3 7 (beat with 3, then lay 7).
Or ←/→ to highlight a card (↑/↓: the next playable one) and Enter to pick it.
Or click your cards; click the pile to take. When nothing beats, Enter takes.
Esc drops a half-made move. A line starting with " is sent as chat."""


def help_lines(rules: Rules) -> list[StyleAndTextTuples]:
    """The help text, one fragment list a line."""
    pickup = (
        "You may take only when nothing of yours beats the top card (forced pick-up)."
        if rules.pickup == "forced"
        else "You may take even when you could beat (voluntary pick-up)."
    )
    sixes = (
        "After the deal each player gives the six of the other's trump suit away."
        if rules.sixes
        else "The sixes stay where they were dealt (--no-sixes)."
    )
    lines: list[StyleAndTextTuples] = [
        [
            ("class:help.heading", "Your trumps: help"),
            ("class:muted", "   (any other key returns to the game)"),
        ],
        [("class:help.heading", "Keys")],
    ]
    for command in COMMAND_KEYS:
        keys = " ".join(key_label(k) for k in command.keys)
        lines.append([("class:help.key", f"  {keys:<14}"), ("class:help", command.help)])
    lines.append([("class:help.key", f"  {'↑ ↓ PgUp PgDn':<14}"), ("class:help", "scroll this help")])
    lines += [[], [("class:help.heading", "Moves")]]
    lines += [[("class:help", "  " + line)] for line in _MOVES.splitlines()]
    lines += [[], [("class:help.heading", "The game")]]
    rules_text = _RULES.format(max_moves=rules.max_moves) + "\n" + pickup + "\n" + sixes
    lines += [[("class:help", "  " + line)] for line in rules_text.splitlines()]
    return lines
