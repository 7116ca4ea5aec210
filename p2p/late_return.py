"""A side that comes back to its unfinished match after being away: whether the match is over,
and how its own record then ends (docs/protocol.md, "Coming back after the limit").

The peer may have claimed the game while we were away; no protocol without a third party can
tell us whether it did when the peer is gone, so we judge on our own clock, as the peer judged
on its own: away past our limit, the game counts as lost by forfeit in our books too (on the
peer's word, or presumed). The host's sealed word that the match is over, heard before our
limit, is the host ending the match on its own authority.

>>> from engine import Rules
>>> match = Match(bytes(32), (bytes(32), bytes(32)), Rules(), 3)
>>> late_return_end(200.0, 180.0, False, match, seat=1)["winner"]  # game 1 lost by forfeit
0
>>> late_return_end(5.0, 180.0, False, match, seat=1) is None  # within the limit: it goes on
True
>>> late_return_end(5.0, 180.0, True, match, seat=1)["end"]  # the host ended it early
'abandoned'
"""

from __future__ import annotations

import os
from pathlib import Path

from p2p.match import Match
from p2p.record import award_note


def late_return_end(away: float, limit: float, over: bool, match: Match, seat: int) -> dict[str, object] | None:
    """The end note of ``match``, unfinished, which we (in ``seat``) come back to after ``away``
    seconds, with our forfeit ``limit``; ``None`` when it goes on. ``over``: the host answered
    our return with its sealed ``busy`` (our match is over)."""
    peer = 1 - seat
    if away >= limit:
        why = "the host says the match is over" if over else "the peer may have claimed the game"
        detail = f"this side was away for {away:.0f} s, past its {limit:g} s limit: {why}"
        return award_note({"end": "forfeit", "detail": detail, "by": seat}, match, peer)
    if not over:
        return None
    detail = f"the host ended the match when this side came back after {away:.0f} s, within its {limit:g} s limit"
    note: dict[str, object] = {"end": "abandoned", "detail": detail, "by": peer}
    return award_note(note, match, seat) if match.deal_known_to(peer) else note


def seconds_since_heard(record: Path, wall_now: float) -> float:
    """How long ago, on the wall clock, the record's side last heard its peer: the record's
    modification time, which the duel refreshes as it hears the peer (``RecordWriter.touch``)."""
    return max(0.0, wall_now - os.stat(record).st_mtime)
