"""Why a game ended, in words: what the replay viewer and ``trumps history`` say (no prompt_toolkit)."""

from __future__ import annotations

from cli.i18n import N_, _
from engine import Outcome

REASONS = {
    "out": N_("out"),
    "last card": N_("last card"),
    "both out": N_("both out"),
    "repetition": N_("repetition"),
    "move cap": N_("move cap"),
}
"""Why a game ended (``engine.Reason`` values), as the replay and ``trumps history`` name it."""


def reason_words(outcome: Outcome) -> str:
    """Why ``outcome`` came about, in the language in use."""
    reason = outcome.reason.value
    return _(REASONS[reason]) if reason in REASONS else reason
