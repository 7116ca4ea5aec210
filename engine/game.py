"""A game from its start: moves played, the result with history rules, records.

The game record is plain text — a title line, ``Key: value`` headers, a blank
line, then one numbered move a line — and reads back into an identical game:

>>> game = Game.from_deal(bytes(32), dealer=0, trumps="SH", Players="Ann vs Bob")
>>> _ = game.play("QS")
>>> print(game.to_record())  # doctest: +NORMALIZE_WHITESPACE
# Your trumps game record
Seed: 0000000000000000000000000000000000000000000000000000000000000000
Dealer: 0
Trumps: SH
Players: Ann vs Bob
Rules: pickup=forced sixes=on max_moves=1000
Start: 6SJSKSAS9HQHAH6D7D8DQDKDAD6C8C9CKCAC/7S8S9STSQS6H7H8HTHJHKH9DTDJD7CTCJCQC/- SH 1
Result: *
<BLANKLINE>
1. QS
<BLANKLINE>
>>> Game.from_record(game.to_record()) == game
True
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping

from engine.deal import deal
from engine.errors import IllegalMoveError, NotationError, RecordError, RulesError
from engine.moves import Move
from engine.position import DEFAULT_RULES, Outcome, Position, Reason
from engine.rules import Rules

RECORD_TITLE = "# Your trumps game record"
_DERIVED = ("Rules", "Start", "Result")
_HEADER = re.compile(r"([A-Za-z][A-Za-z0-9_-]{0,39}): ?(.*)")
_MOVE_LINE = re.compile(r"([0-9]{1,7})\.\s+(\S.*)")
_REPEATS_FOR_DRAW = 3


class Game:
    """A game: its start position, the moves played so far and its result.

    ``headers`` are free ``Key: value`` facts for the record (players, date,
    and for a dealt game ``Seed``, ``Dealer`` and ``Trumps``).
    """

    def __init__(self, start: Position, headers: Mapping[str, str] | None = None) -> None:
        self.start = start
        self.headers: dict[str, str] = dict(headers or {})
        for key, value in self.headers.items():
            _check_header(key, value)
        self._positions: list[Position] = [start]
        self._moves: list[Move] = []
        self._seen: Counter[Position] = Counter({start: 1})
        self._result = start.outcome()

    @classmethod
    def from_deal(
        cls, seed: bytes, dealer: int, trumps: str, rules: Rules = DEFAULT_RULES, **headers: str
    ) -> Game:
        """A new game dealt by :func:`engine.deal`, with the deal in its headers."""
        start = deal(seed, dealer, trumps, rules)
        facts = {"Seed": seed.hex(), "Dealer": str(dealer), "Trumps": trumps.upper()}
        return cls(start, facts | headers)

    # ------------------------------------------------------------------ state

    @property
    def position(self) -> Position:
        """The current position."""
        return self._positions[-1]

    @property
    def moves(self) -> tuple[Move, ...]:
        """The moves played, in order."""
        return tuple(self._moves)

    @property
    def positions(self) -> tuple[Position, ...]:
        """Every position so far, the start first and the current one last."""
        return tuple(self._positions)

    @property
    def result(self) -> Outcome | None:
        """How the game ended, with history rules (repetition, move cap), or ``None``."""
        return self._result

    def play(self, move: Move | str) -> Position:
        """Play a move (a :class:`Move` or its text) and return the new position."""
        if isinstance(move, str):
            move = Move.parse(move)
        if self._result is not None:
            raise IllegalMoveError(f"{move} cannot be played: the game is over")
        after = self.position.play(move)
        self._moves.append(move)
        self._positions.append(after)
        self._seen[after] += 1
        self._result = self._judge(after)
        return after

    def undo(self, count: int = 1) -> None:
        """Take back the last ``count`` moves."""
        if not 0 <= count <= len(self._moves):
            raise IllegalMoveError(f"cannot undo {count} move(s): {len(self._moves)} played")
        for _ in range(count):
            self._moves.pop()
            gone = self._positions.pop()
            self._seen[gone] -= 1
        self._result = self._judge(self.position) if self._moves else self.start.outcome()

    def _judge(self, position: Position) -> Outcome | None:
        outcome = position.outcome()
        if outcome is not None:
            return outcome
        if self._seen[position] >= _REPEATS_FOR_DRAW:
            return Outcome(None, Reason.REPETITION)
        if len(self._moves) >= position.rules.max_moves:
            return Outcome(None, Reason.MOVE_CAP)
        return None

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Game):
            return NotImplemented
        return (self.start, self._moves, self.headers) == (other.start, other._moves, other.headers)

    __hash__ = None  # type: ignore[assignment]  # a game changes as it is played

    # ----------------------------------------------------------------- record

    def to_record(self) -> str:
        """The plain-text game record (see the module docs)."""
        lines = [RECORD_TITLE]
        for key, value in self.headers.items():
            _check_header(key, value)
            lines.append(f"{key}: {value}")
        lines.append(f"Rules: {self.start.rules.notation()}")
        lines.append(f"Start: {self.start.notation()}")
        lines.append(f"Result: {result_text(self._result)}")
        lines.append("")
        lines += [f"{n}. {move}" for n, move in enumerate(self._moves, 1)]
        return "\n".join(lines) + "\n"

    @classmethod
    def from_record(cls, text: str) -> Game:
        """Read a record written by :meth:`to_record`, checking every move.

        A corrupt or impossible record raises :class:`RecordError` naming the
        line and the reason:

        >>> Game.from_record("# Your trumps game record\\nStart: 6S/7S/- SH 0\\nResult: *\\n\\n1. 7S\\n")
        Traceback (most recent call last):
        ...
        engine.errors.RecordError: line 5: move 1 (7S) is not legal: player 0 does not hold 7S
        """
        lines = [line.removesuffix("\r") for line in text.removesuffix("\n").split("\n")]
        if not lines or lines[0].lstrip("\ufeff").strip() != RECORD_TITLE:
            raise RecordError(f"not a game record: the first line must be {RECORD_TITLE!r}", 1)
        headers: dict[str, str] = {}
        header_line: dict[str, int] = {}
        number = 1
        for number, line in enumerate(lines[1:], 2):
            if not line.strip():
                break
            match = _HEADER.fullmatch(line)
            if match is None:
                raise RecordError(f"{line.strip()!r} is not a 'Key: value' header", number)
            key, value = match.groups()
            if key in headers:
                raise RecordError(f"header {key!r} appears twice", number)
            headers[key] = value
            header_line[key] = number
        else:
            number += 1
        game = cls._start_from_headers(headers, header_line)
        first_move_line = number
        for number, line in enumerate(lines[first_move_line:], first_move_line + 1):
            if not line.strip():
                continue
            match = _MOVE_LINE.fullmatch(line.strip())
            if match is None:
                raise RecordError(f"{line.strip()!r} is not a numbered move like '12. KS,6H'", number)
            expected = len(game._moves) + 1
            if int(match.group(1)) != expected:
                raise RecordError(f"move number {match.group(1)} where {expected} was due", number)
            try:
                move = Move.parse(match.group(2))
                game.play(move)
            except (NotationError, IllegalMoveError) as exc:
                detail = str(exc).split(": ", 1)[-1]
                raise RecordError(
                    f"move {expected} ({match.group(2)}) is not legal: {detail}", number
                ) from None
        if "Result" not in headers:
            raise RecordError("the record has no 'Result:' header (* for an unfinished game)")
        claimed = headers["Result"]
        if claimed != result_text(game._result):
            raise RecordError(
                f"the result says {claimed!r} but the moves give {result_text(game._result)!r}",
                header_line.get("Result"),
            )
        return game

    @classmethod
    def _start_from_headers(cls, headers: dict[str, str], where: dict[str, int]) -> Game:
        try:
            rules = Rules.parse(headers.get("Rules", ""))
        except RulesError as exc:
            raise RecordError(str(exc), where.get("Rules")) from None
        if "Start" not in headers:
            raise RecordError("the record has no 'Start:' header with the start position")
        try:
            start = Position.from_notation(headers["Start"], rules)
        except NotationError as exc:
            raise RecordError(f"start position: {exc}", where["Start"]) from None
        free = {k: v for k, v in headers.items() if k not in _DERIVED}
        if "Seed" in free:
            _check_deal(free, start, where)
        return cls(start, free)


def _check_header(key: str, value: str) -> None:
    """A free header must read back as it was written: a plain key, a one-line value."""
    if _HEADER.fullmatch(f"{key}: {value}") is None or key in _DERIVED or "\n" in value or "\r" in value:
        raise RecordError(f"header {key!r}: {value!r} cannot be written in a record")


def result_text(outcome: Outcome | None) -> str:
    """A result as records write it: ``1-0 out``, ``1/2-1/2 repetition``, ``*``."""
    if outcome is None:
        return "*"
    score = {0: "1-0", 1: "0-1", None: "1/2-1/2"}[outcome.winner]
    return f"{score} {outcome.reason.value}"


def _check_deal(headers: dict[str, str], start: Position, where: dict[str, int]) -> None:
    """A record that names its deal must start from exactly that deal."""
    seed_text, dealer_text = headers["Seed"], headers.get("Dealer", "")
    try:
        # Python's own words for these would reach the player untranslated: the engine says its own
        if not re.fullmatch(r"(?:[0-9a-fA-F]{2})*", seed_text):
            raise NotationError(f"Seed {seed_text!r} is not hexadecimal, two digits a byte")
        if dealer_text not in ("0", "1"):
            raise NotationError(f"the dealer must be player 0 or 1, not {dealer_text!r}")
        dealt = deal(bytes.fromhex(seed_text), int(dealer_text), headers.get("Trumps", ""), start.rules)
    except NotationError as exc:
        raise RecordError(
            f"the deal headers (Seed, Dealer, Trumps) are unreadable: {exc}", where["Seed"]
        ) from None
    if dealt != start:
        raise RecordError(
            "the start position is not the deal that Seed, Dealer and Trumps give", where["Start"]
        )
