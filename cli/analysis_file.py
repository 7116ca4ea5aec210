"""The coach's analysis of a game, saved beside its record as JSON (``<record>.analysis.json``).

``trumps analyze`` and the analysis screen write it; ``trumps replay`` reads it back and shows
each move's verdict. The JSON is also what ``trumps analyze --json`` prints: keys and verdict
names in English, as the engine has them. An estimate's ``grade`` (``doubtful``, ``estimated
mistake`` or ``null``) is written for other programs but not read back: it follows from the
estimates, so a file written before grades existed shows them too.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from cli import storage
from cli.history import record_path
from cli.i18n import _
from engine import Game, Move, MoveError
from engine.ai.analysis import ESTIMATED, FORCED, KEPT, MISTAKES, Verdict

_VALUES = {1: "win", 0: "draw", -1: "loss", None: None}
_KINDS = (KEPT, ESTIMATED, FORCED, *MISTAKES)


def analysis_path(spec: str) -> Path:
    """Where the analysis of the game ``spec`` names is kept: ``2026-11-30T10-02-11Z.txt.analysis.json``,
    and for game N of a network match record ``match.jsonl.game2.analysis.json``."""
    path, number = record_path(spec)
    game = "" if number is None else f".game{number or 1}"
    return path.with_name(f"{path.name}{game}.analysis.json")


def analysis_json(spec: str, verdicts: Iterable[Verdict], complete: bool) -> str:
    """The verdicts as JSON for other programs and for :func:`load_analysis`."""
    moves = [
        {
            "number": v.index + 1,
            "player": v.player,
            "move": str(v.move),
            "verdict": v.kind,
            "proven": v.proven,
            "before": _VALUES[v.before],
            "after": _VALUES[v.after],
            "better": None if v.better is None else str(v.better),
            "played_estimate": v.played,
            "best_estimate": v.best,
            "grade": v.grade,
        }
        for v in verdicts
    ]
    return json.dumps({"record": spec, "complete": complete, "moves": moves}, ensure_ascii=False, indent=1)


def save_analysis(spec: str, verdicts: Iterable[Verdict]) -> Path:
    """Write the (complete) analysis of ``spec`` beside its record, atomically; its path
    (``OSError`` when it cannot be written)."""
    path = analysis_path(spec)
    storage.write_atomic(path, analysis_json(spec, verdicts, complete=True) + "\n")
    return path


def load_analysis(path: Path, game: Game) -> dict[int, Verdict]:
    """The saved verdicts on ``game``'s moves by move index (none when there is no file).

    Raises :class:`cli.storage.StorageError` when the file cannot be read, is not an analysis,
    or is about another game (a move that is not the one the record has).
    """
    if not os.path.exists(path):  # unlike Path.exists, False where a folder cannot be searched
        return {}
    try:
        raw = json.loads(storage.read_text(path))
        return {v.index: v for v in (_verdict(entry, game) for entry in raw["moves"])}
    # RecursionError: arrays nested deeper than the parser's stack; OverflowError: a move
    # numbered 1e999, which JSON reads as an infinite float
    except (ValueError, KeyError, TypeError, IndexError, MoveError, RecursionError, OverflowError) as exc:
        why = _("{file} is not an analysis of this game ({error})").format(file=path.name, error=exc)
        raise storage.StorageError(why) from None


def _verdict(entry: Any, game: Game) -> Verdict:
    index = int(entry["number"]) - 1
    move = Move.parse(str(entry["move"]))
    if not 0 <= index < len(game.moves) or game.moves[index] != move:
        raise ValueError(_("move {number} is not {move}").format(number=index + 1, move=move))
    kind = str(entry["verdict"])
    if kind not in _KINDS:
        raise ValueError(_("unknown verdict {kind!r}").format(kind=kind))
    values = {text: value for value, text in _VALUES.items()}
    better = entry["better"]
    return Verdict(
        index,
        game.positions[index].turn,
        move,
        kind,
        values[entry["before"]],
        values[entry["after"]],
        None if better is None else Move.parse(str(better)),
        _number(entry["played_estimate"]),
        _number(entry["best_estimate"]),
    )


def _number(value: Any) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(_("{value!r} is not a number").format(value=value))
    return float(value)
