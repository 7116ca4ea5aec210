"""The rows of ``trumps history``: one saved game each, seen from your seat."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from cli import storage
from cli.app.session import MY_NAME
from engine import Game, RecordError


@dataclass(frozen=True)
class Row:
    """One saved game: when, against whom, how it ended for you, its length and file."""

    date: str
    opponent: str
    result: str
    moves: str
    file: str


def history_rows(paths: Iterable[Path]) -> list[Row]:
    """A row for each record; an unreadable one says why instead of stopping the list."""
    try:
        unfinished = storage.load_unfinished()
    except storage.StorageError:
        unfinished = None
    rows = []
    for path in paths:
        try:
            game = Game.from_record(storage.read_text(path))
        except (storage.StorageError, RecordError) as exc:
            rows.append(Row("?", "?", f"unreadable: {exc}", "?", path.name))
            continue
        resumable = unfinished is not None and unfinished.record == path.name
        rows.append(_row(game, path.name, resumable))
    return rows


def _row(game: Game, file: str, resumable: bool) -> Row:
    names = game.headers.get("Players", "").split(" vs ")
    me = names.index(MY_NAME) if len(names) == 2 and MY_NAME in names else 0
    opponent = names[1 - me] if len(names) == 2 else "?"
    outcome = game.result
    if outcome is None:
        result = "unfinished: trumps play --resume" if resumable else "abandoned"
    elif outcome.winner is None:
        result = f"draw ({outcome.reason.value})"
    else:
        result = f"{'won' if outcome.winner == me else 'lost'} ({outcome.reason.value})"
    date = game.headers.get("Date", "?").removesuffix(" UTC")[:16]
    return Row(date, opponent, result, str(len(game.moves)), file)
