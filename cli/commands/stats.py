"""``trumps stats``: your record across sessions, per opponent and AI level, from the saved games."""

from __future__ import annotations

import argparse
import re
import shutil
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from cli.i18n import N_, _, ngettext

if TYPE_CHECKING:
    from engine import Game

HELP = N_("your record: games won, lost and drawn against each opponent and AI level")
_AI = re.compile(r"AI \((\w+)\)")
OUTCOME_HEADINGS = {
    "won": N_("Won"), "claimed": N_("Claimed"), "lost": N_("Lost"), "drawn": N_("Drawn"), "unfinished": N_("Unfinished")
}  # fmt: skip
"""Each column's heading: the column of claims is shown only when there is one to count."""
OUTCOMES = tuple(OUTCOME_HEADINGS)
"""How a game ended for you, as the columns count it: ``claimed`` is a game your own record
awards you (the opponent left or stayed away): your account alone, which the opponent never
signed, counted apart from the wins both signed."""


@dataclass
class Record:
    """The games against one opponent (at one level, for the AI), counted by how they ended for you."""

    opponent: str
    level: str
    counts: Counter[str] = field(default_factory=Counter)

    @property
    def played(self) -> int:
        """Every game, finished or not."""
        return sum(self.counts.values())


CountedGame = tuple["Game", int, "int | None"]
"""A saved game, your seat, and the seat a match record's end note awards it to by forfeit, if any."""


def tally(games: Iterable[CountedGame]) -> list[Record]:
    """The record per opponent and level of ``games``, most played first; a game awarded by
    forfeit counts as claimed (to you, by your own record) or lost.

    >>> from engine import Game
    >>> game = Game.from_deal(bytes(32), 0, "SH", Players="You vs AI (hard)")
    >>> [(r.opponent, r.level, r.played, r.counts["unfinished"]) for r in tally([(game, 0, None)])]
    [('AI', 'hard', 1, 1)]
    >>> [(r.opponent, r.counts["lost"], r.counts["claimed"]) for r in tally([(game, 0, 1), (game, 0, 0)])]
    [('AI', 1, 1)]
    """
    records: dict[tuple[str, str], Record] = {}
    for game, me, awarded in games:
        names = game.headers.get("Players", "").split(" vs ")
        other = names[1 - me] if len(names) == 2 else "?"
        ai = _AI.fullmatch(other)
        key = ("AI", ai.group(1)) if ai else (other, "")
        record = records.setdefault(key, Record(*key))
        outcome = game.result
        if awarded is not None:  # a forfeit replaces a played result
            record.counts["claimed" if awarded == me else "lost"] += 1
        elif outcome is None:
            record.counts["unfinished"] += 1
        elif outcome.winner is None:
            record.counts["drawn"] += 1
        else:
            record.counts["won" if outcome.winner == me else "lost"] += 1
    return sorted(records.values(), key=lambda r: (-r.played, r.opponent, r.level))


def saved_games() -> tuple[list[CountedGame], int]:
    """Every saved game with your seat, each once: the interface's records (with the award of
    the same game's match record, as ``trumps history`` counts it), then the network match
    records' other games; and how many files could not be read (left out: ``trumps history``
    names them)."""
    from cli import storage
    from cli.history import ListedGame, listed_games, match_record_paths

    listed = listed_games(storage.record_paths(), match_record_paths())
    games = [(entry.game, entry.seat, entry.awarded) for entry in listed if isinstance(entry, ListedGame)]
    return games, len(listed) - len(games)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``trumps stats`` has no options."""


def run(args: argparse.Namespace) -> int:
    """Print the record; the exit status."""
    from cli.app.board import pad
    from cli.app.names import LEVEL_NAMES
    from cli.printable import printable

    games, unreadable = saved_games()
    records = tally(games)
    left_out = ngettext(
        "{count} unreadable file is left out: 'trumps history' names it.",
        "{count} unreadable files are left out: 'trumps history' names them.",
        unreadable,
    ).format(count=unreadable)
    if not records:
        print(_("No saved games yet: your record starts with the first one."))
        if unreadable:
            print(left_out)
        return 0
    total = Record("", "", sum((r.counts for r in records), Counter()))
    shown = [o for o in OUTCOMES if o != "claimed" or total.counts[o]]  # a column of claims only if any
    heading = [_("Opponent"), _("Level"), _("Games"), *(_(OUTCOME_HEADINGS[o]) for o in shown)]
    rows = [
        [
            _("AI") if r.opponent == "AI" and r.level else printable(r.opponent),  # a peer's name
            _(LEVEL_NAMES[r.level]) if r.level in LEVEL_NAMES else r.level,
            str(r.played),
            *(str(r.counts[outcome]) for outcome in shown),
        ]
        for r in records
    ]
    rows.append([_("All"), "", str(total.played), *(str(total.counts[o]) for o in shown)])
    widths = [max(_cells(row[i]) for row in [heading, *rows]) for i in range(len(heading))]
    gap = "  " if sum(widths) + 2 * (len(widths) - 1) <= shutil.get_terminal_size().columns else " "
    for row in [heading, *rows]:
        cells = [pad(row[0], widths[0]), pad(row[1], widths[1])]
        cells += [" " * (widths[i] - _cells(row[i])) + row[i] for i in range(2, len(row))]
        print(gap.join(cells).rstrip())
    if total.counts["claimed"]:
        print("\n" + _("Claimed: games your own record awards you (the opponent left or stayed away too long); the opponent did not sign them."))
    if unreadable:
        print("\n" + left_out)
    return 0


def _cells(text: str) -> int:
    from cli.app.widths import cell_width

    return cell_width(text)
