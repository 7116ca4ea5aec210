"""The rows of ``trumps history``: one saved game each, seen from your seat."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from cli import storage
from cli.app.names import MY_NAME, shown_name
from cli.app.replay import reason_words
from cli.i18n import _
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
            rows.append(Row("?", "?", _("unreadable: {error}").format(error=exc), "?", path.name))
            continue
        resumable = unfinished is not None and unfinished.record == path.name
        rows.append(_row(game, path.name, resumable))
    return rows


def _row(game: Game, file: str, resumable: bool) -> Row:
    names = game.headers.get("Players", "").split(" vs ")
    me = names.index(MY_NAME) if len(names) == 2 and MY_NAME in names else 0
    opponent = shown_name(names[1 - me]) if len(names) == 2 else "?"
    outcome = game.result
    if outcome is None:
        result = _("unfinished: trumps play --resume") if resumable else _("abandoned")
    elif outcome.winner is None:
        result = _("draw ({reason})").format(reason=reason_words(outcome))
    elif outcome.winner == me:
        result = _("won ({reason})").format(reason=reason_words(outcome))
    else:
        result = _("lost ({reason})").format(reason=reason_words(outcome))
    date = game.headers.get("Date", "?").removesuffix(" UTC")[:16]
    return Row(date, opponent, result, str(len(game.moves)), file)
