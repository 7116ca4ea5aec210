"""The rows of ``trumps history``: one saved game each, seen from your seat.

Two kinds of file hold games: the game records of ``<data>/games`` (every game
played in the full-screen interface, against the AI or a friend) and the signed
match records of ``<data>/matches`` that the network duel keeps (also for
headless ``--bot`` matches). A game of a match record is named ``FILE#N``, the
name ``trumps replay`` takes; a game found in both kinds is listed once.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from cli import storage
from cli.app.names import MY_NAME, shown_name
from cli.app.replay import reason_words
from cli.home import Home
from cli.i18n import _, translated
from engine import Game, RecordError
from p2p import errors as p2p_errors
from p2p.record import verify


@dataclass(frozen=True)
class Row:
    """One saved game: when, against whom, how it ended for you, its length and file."""

    date: str
    opponent: str
    result: str
    moves: str
    file: str


def history_rows(paths: Iterable[Path], match_paths: Iterable[Path] = ()) -> list[Row]:
    """A row for each game of the records; an unreadable file says why instead of stopping the list."""
    try:
        unfinished = storage.load_unfinished()
    except storage.StorageError:
        unfinished = None
    rows = []
    listed: set[tuple[object, ...]] = set()
    for path in paths:
        try:
            game = Game.from_record(storage.read_text(path))
        except (storage.StorageError, RecordError) as exc:
            rows.append(Row("?", "?", _("unreadable: {error}").format(error=exc), "?", path.name))
            continue
        listed.add((game.start, *game.moves))
        names = game.headers.get("Players", "").split(" vs ")
        me = names.index(MY_NAME) if len(names) == 2 and MY_NAME in names else 0
        resumable = unfinished is not None and unfinished.record == path.name
        rows.append(_row(game, me, path.name, resumable))
    for path in match_paths:
        try:
            games = network_games(path)
        except (storage.StorageError, p2p_errors.RecordError) as exc:
            error = translated(exc)
            rows.append(Row("?", "?", _("unreadable: {error}").format(error=error), "?", path.name))
            continue
        for name, game, me in games:
            if (game.start, *game.moves) not in listed:
                rows.append(_row(game, me, name, False))
    return rows


def match_record_paths() -> list[Path]:
    """Every signed network match record, oldest first (their names start with the time)."""
    folder = Home.default().records
    return sorted(folder.glob("*.jsonl")) if folder.is_dir() else []


def network_games(path: Path) -> list[tuple[str, Game, int]]:
    """The games of a network match record, verified: ``(FILE#N, game, your seat)`` each.

    Each game gets the players' names and the record's date as headers, as
    the interface's own records have them.
    """
    verified = verify(storage.read_text(path))
    names = verified.session.names
    stamp = path.name[:16]  # 20261130T101500Z, see p2p.record.RecordWriter
    date = f"{stamp[:4]}-{stamp[4:6]}-{stamp[6:8]} {stamp[9:11]}:{stamp[11:13]}"
    games = [result.game for result in verified.match.results]
    if verified.match.game is not None and verified.match.game not in games:
        games.append(verified.match.game)
    for game in games:
        game.headers |= {"Players": f"{names[0]} vs {names[1]}", "Date": date}
    return [(f"{path.name}#{n}", game, verified.session.seat) for n, game in enumerate(games, 1)]


def _row(game: Game, me: int, file: str, resumable: bool) -> Row:
    names = game.headers.get("Players", "").split(" vs ")
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
