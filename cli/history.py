"""The rows of ``trumps history``: one saved game each, seen from your seat, and the table they make.

Two kinds of file hold games: the game records of ``<data>/games`` (every game
played in the full-screen interface, against the AI or a friend) and the signed
match records of ``<data>/matches`` that the network duel keeps (also for
headless ``--bot`` matches). A game of a match record is named ``FILE#N``, the
name ``trumps replay`` takes; a game found in both kinds is listed once, with
what the match record adds: a game its end note awards (won by forfeit).

Plain text only: nothing here loads prompt_toolkit, and the protocol's
cryptography only when there are match records to verify.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from cli import storage
from cli.app.names import MY_NAME, shown_name
from cli.cells import cell_width, fit, pad, wrap
from cli.home import Home
from cli.i18n import _, translated
from cli.printable import printable
from cli.reasons import reason_words
from cli.record_words import unreadable_record
from engine import Game, RecordError
from p2p import errors as p2p_errors


@dataclass(frozen=True)
class Row:
    """One saved game: when, against whom, how it ended for you, its length and file, and the
    number ``trumps replay`` and ``trumps analyze`` take for it; an unreadable file has no number,
    and its ``result`` says why it cannot be read."""

    date: str
    opponent: str
    result: str
    moves: str
    file: str
    number: str = ""
    resumable: bool = False
    """The unfinished game ``trumps play`` offers to continue."""

    @property
    def readable(self) -> bool:
        """Whether the row is a game (an unreadable file is none)."""
        return bool(self.number)


@dataclass(frozen=True)
class NetworkGame:
    """A game of a verified match record."""

    name: str
    """``FILE#N``."""
    game: Game
    """With the players' names and the record's date as headers."""
    seat: int
    """Your seat (the record's saver)."""
    awarded: int | None
    """The seat the record's end note awards this game to by forfeit, if it does (a played game
    too: the forfeit replaces its result)."""


@dataclass(frozen=True)
class ListedGame:
    """A saved game as the history lists it and the record counts it."""

    game: Game
    seat: int
    """Your seat."""
    file: str
    """Its record's name (``FILE#N`` for a game of a match record)."""
    awarded: int | None
    """The seat a match record's end note awards this game to by forfeit, if it does (a played
    game too: the forfeit replaces its result)."""


@dataclass(frozen=True)
class Unreadable:
    """A record that could not be read, and why."""

    path: Path
    error: str


def listed_games(paths: Iterable[Path], match_paths: Iterable[Path] = ()) -> list[ListedGame | Unreadable]:
    """Every game of the interface's records ``paths`` (in order, each with the award of the same
    game in a match record, if any), then the match records' other games, then the match
    records that could not be read: each game once, whichever files hold it."""
    network: dict[tuple[object, ...], NetworkGame] = {}
    damaged: list[ListedGame | Unreadable] = []
    for path in match_paths:
        try:
            network |= {_game_key(found.game): found for found in network_games(path)}
        except (storage.StorageError, p2p_errors.MatchRecordError) as exc:
            damaged.append(Unreadable(path, translated(exc)))
    listed: list[ListedGame | Unreadable] = []
    for path in paths:
        try:
            game = Game.from_record(storage.read_text(path))
        except storage.StorageError as exc:  # named like the others: the foot names the folder
            listed.append(Unreadable(path, str(exc).replace(str(path), path.name)))
            continue
        except RecordError as exc:
            listed.append(Unreadable(path, unreadable_record(path.name, exc)))
            continue
        names = game.headers.get("Players", "").split(" vs ")
        me = names.index(MY_NAME) if len(names) == 2 and MY_NAME in names else 0
        same = network.pop(_game_key(game), None)  # the same game in a match record: its award counts
        listed.append(ListedGame(game, me, path.name, same.awarded if same else None))
    listed += [ListedGame(found.game, found.seat, found.name, found.awarded) for found in network.values()]
    return listed + damaged


def history_rows(paths: Iterable[Path], match_paths: Iterable[Path] = ()) -> list[Row]:
    """A row for each game of the records; an unreadable file says why instead of stopping the list."""
    try:
        unfinished = storage.load_unfinished()
    except storage.StorageError:
        unfinished = None
    resumable = None if unfinished is None else unfinished.record
    rows: list[Row] = []
    for entry in listed_games(paths, match_paths):
        if isinstance(entry, ListedGame):
            number = str(sum(row.readable for row in rows) + 1)
            rows.append(_row(entry.game, entry.seat, entry.file, entry.file == resumable, entry.awarded, number))
        else:
            rows.append(Row("?", "?", entry.error, "?", entry.path.name))
    return rows


def _game_key(game: Game) -> tuple[object, ...]:
    """What makes two saved copies of a game the same game: its start and its moves (the
    interface's record and a match record's game)."""
    return (game.start, *game.moves)


def match_record_paths() -> list[Path]:
    """Every signed network match record, oldest first (their names start with the time)."""
    folder = Home.default().records
    return sorted(folder.glob("*.jsonl")) if os.path.isdir(folder) else []  # False, not raised, where denied


def network_games(path: Path) -> list[NetworkGame]:
    """The games of a network match record, verified, in order (the unfinished one last)."""
    from p2p.record import verify  # the protocol (and its cryptography) only when there is a record

    verified = verify(storage.read_text(path))
    names = verified.session.names
    stamp = path.name[:16]  # 20261130T101500Z, see p2p.record.RecordWriter
    date = f"{stamp[:4]}-{stamp[4:6]}-{stamp[6:8]} {stamp[9:11]}:{stamp[11:13]}"
    games = [result.game for result in verified.match.results]
    if verified.match.game is not None and verified.match.game not in games:
        games.append(verified.match.game)
    found = []
    for number, game in enumerate(games, 1):
        game.headers |= {"Players": f"{names[0]} vs {names[1]}", "Date": date}
        award = verified.awarded  # a played game too: a forfeit then replaces its result
        seat = award[1] if award is not None and award[0] == number else None
        found.append(NetworkGame(f"{path.name}#{number}", game, verified.session.seat, seat))
    return found


def _row(game: Game, me: int, file: str, resumable: bool, awarded: int | None, number: str) -> Row:
    names = game.headers.get("Players", "").split(" vs ")
    opponent = shown_name(names[1 - me]) if len(names) == 2 else "?"
    outcome = game.result
    if awarded is not None:  # before a played result: a forfeit replaces it
        result = _("won by forfeit") if awarded == me else _("lost by forfeit")
    elif outcome is None:
        result = _("unfinished, resumable") if resumable else _("abandoned")
    elif outcome.winner is None:
        result = _("draw ({reason})").format(reason=reason_words(outcome))
    elif outcome.winner == me:
        result = _("won ({reason})").format(reason=reason_words(outcome))
    else:
        result = _("lost ({reason})").format(reason=reason_words(outcome))
    date = game.headers.get("Date", "?").removesuffix(" UTC")[:16]
    return Row(date, opponent, result, str(len(game.moves)), file, number, resumable and outcome is None)


# ------------------------------------------------------------------ the table

GAPS = (1, 1, 1, 1, 2)
"""Spaces between the columns: number, date, opponent, result, moves, file."""
FLOORS = {3: 14, 2: 8, 1: 11}
"""How narrow the result, opponent and date columns become before any goes narrower still, in
the order they give way, once the file column has gone (the number names the game to ``trumps
replay``). The date gives way by dropping its year (``11-30 10:15``)."""
_YEAR = re.compile(r"\d{4}-(?=\d\d-\d\d \d\d:\d\d$)")


def table_lines(rows: list[Row], width: int) -> list[str]:
    """The heading and a row per game (one line, or more where its result wraps), columns aligned,
    no line wider than ``width`` cells; then each unreadable file and why, whole, broken between
    words.

    Every cell is made harmless (:func:`printable`: names, results and file names come from files
    and peers). Where the columns do not fit, the date's year goes first, then the file column,
    whole (each game keeps its number, which ``trumps replay`` and ``trumps analyze`` take), then
    the year too; then the others narrow in the order of :data:`FLOORS`: the result wraps onto
    lines of its own column, the opponent and the date are cut with an ellipsis; the number and
    the move count stay whole.
    """
    heading = ("#", _("Date"), _("Opponent"), _("Result"), _("Moves"), _("File"))
    table = [list(heading)] + [
        [printable(cell) for cell in (row.number, row.date, row.opponent, row.result, row.moves, row.file)]
        for row in rows
        if row.readable
    ]
    widths = [max(cell_width(line[column]) for line in table) for column in range(6)]
    gaps = list(GAPS)
    yearless = max(cell_width(_YEAR.sub("", line[1])) for line in table)
    if sum(widths) + sum(gaps) > width and sum(widths) - widths[1] + yearless + sum(gaps) <= width:
        widths[1] = yearless  # the year goes first: the file's name still shows it
    elif sum(widths) + sum(gaps) > width:
        widths[5], gaps[4] = 0, 0
        if sum(widths) + sum(gaps) > width:
            widths[1] = yearless  # before any cell is cut or wrapped
    excess = sum(widths) + sum(gaps) - width
    for floor_of in (FLOORS, dict.fromkeys(FLOORS, 1)):
        for column, floor in floor_of.items():
            cut = max(0, min(excess, widths[column] - floor))
            widths[column] -= cut
            excess -= cut
    if widths[1] < max(cell_width(line[1]) for line in table):
        table = [[line[0], _YEAR.sub("", line[1]), *line[2:]] for line in table]
    lines = []
    for line in table:
        results = wrap(line[3], widths[3]) or [""]  # a result is said whole: cut, it could mislead
        shown = [[fit(text, room)] for text, room in zip(line, widths, strict=True)]
        shown[3] = [fit(part, widths[3]) for part in results]  # fit: a single word wider than the column
        for at in range(len(results)):  # the first line holds every cell, the others the result's rest
            cells = [
                pad(parts[at] if at < len(parts) else "", room, right=column in (0, 4)) if room else ""
                for column, (parts, room) in enumerate(zip(shown, widths, strict=True))
            ]
            lines.append("".join(cell + " " * gap for cell, gap in zip(cells, (*gaps, 0), strict=True)).rstrip())
    for row in rows:
        if not row.readable:
            if row.file in row.result:  # the error names the file already (cli.storage's sentences)
                said = _("unreadable: {error}").format(error=printable(row.result))
            else:
                said = _("unreadable: {file}: {error}").format(file=printable(row.file), error=printable(row.result))
            lines += [("  " if i else "") + part for i, part in enumerate(wrap(said, width - 2))]
    return lines


def game_spec(spec: str) -> str:
    """What ``spec`` names for :func:`load_game`: itself, or for a number that names no file the
    game ``trumps history`` lists under that number (:class:`cli.storage.StorageError` where it
    lists none)."""
    if not re.fullmatch("[0-9]{1,9}", spec) or os.path.exists(spec):
        return spec
    listed = listed_games(storage.record_paths(), match_record_paths())
    files = [entry.file for entry in listed if isinstance(entry, ListedGame)]
    if not files:
        raise storage.StorageError(_("there is no game {number}: no game is saved yet").format(number=spec))
    if not 1 <= int(spec) <= len(files):
        message = _("there is no game {number}: trumps history numbers the games 1 to {count}")
        raise storage.StorageError(message.format(number=spec, count=len(files)))
    return files[int(spec) - 1]


def _screen_record(path: Path) -> bool:
    """Whether ``path`` holds a game record of the screen's (not a network match record)."""
    try:
        Game.from_record(storage.read_text(path))
    except (storage.StorageError, RecordError):
        return False
    return True


def record_path(spec: str) -> tuple[Path, str | None]:
    """The file ``spec`` names (see :func:`load_game`) and, for a network match record, the game
    number as written (``""``: left out); ``None`` for a game record."""
    name, hash_sign, number = spec.rpartition("#") if "#" in spec else (spec, "", "")
    path = Path(name)
    for folder in (storage.games_dir(), Home.default().records):
        if not os.path.exists(path) and os.path.exists(folder / name):  # no PermissionError: reading says it
            path = folder / name
    if path.suffix != ".jsonl" and not hash_sign:
        return path, None
    return path, number


def load_game(spec: str) -> Game:
    """The game ``spec`` names: a game record (a path, or a name in the games folder) or game N of
    a network match record (``FILE#N``, a path or a name in the records folder; ``#1`` if left out).

    Raises :class:`cli.storage.StorageError`, :class:`engine.RecordError` or
    :class:`p2p.errors.MatchRecordError` saying why it cannot be read.
    """
    path, number = record_path(spec)
    if number is None:
        return Game.from_record(storage.read_text(path))
    try:
        games = network_games(path)
    except p2p_errors.MatchRecordError:
        if _screen_record(path):
            template = _("{file} is a game saved from the screen, the only game in it: name it without #{number}")
            raise storage.StorageError(template.format(file=path.name, number=number)) from None
        raise
    chosen = [found.game for found in games if found.name == f"{path.name}#{number or 1}"]
    if not chosen:
        raise RecordError(_("it holds games 1 to {count}, not {number!r}").format(count=len(games), number=number))
    return chosen[0]
