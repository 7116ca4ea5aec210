"""The match rules of rules.md: who deals next, and what a game scores.

>>> next_dealer(dealer=0, winner=1), next_dealer(dealer=0, winner=None)  # loser deals; a draw passes
(0, 1)
>>> score_halves(winner=None), score_halves(winner=0)  # half points: a draw is 1/2 each
((1, 1), (2, 0))
"""

from __future__ import annotations


def next_dealer(dealer: int, winner: int | None) -> int:
    """Who deals the next game of a match: the loser; after a draw, the other player."""
    return 1 - dealer if winner is None else 1 - winner


def score_halves(winner: int | None) -> tuple[int, int]:
    """What a game scores for players 0 and 1, in half points: a win 1, a draw 1/2 each."""
    if winner is None:
        return (1, 1)
    return (2, 0) if winner == 0 else (0, 2)
