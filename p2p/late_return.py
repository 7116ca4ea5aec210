"""A side that comes back to its unfinished match after a restart: how long it was away, read
from its record on disk; whether the match is over then is
:func:`p2p.match_end.late_return_end`'s (docs/protocol.md, "Coming back after the limit")."""

from __future__ import annotations

import os
from pathlib import Path


def seconds_since_heard(record: Path, wall_now: float) -> float:
    """How long ago, on the wall clock, the record's side last heard its peer: the record's
    modification time, which the duel refreshes as it hears the peer (``RecordWriter.touch``)."""
    return max(0.0, wall_now - os.stat(record).st_mtime)
