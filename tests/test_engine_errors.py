"""Bad input: every malformed or illegal input gets a specific ValueError naming the fault."""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine import (
    Card,
    CardError,
    Game,
    IllegalMoveError,
    Move,
    MoveError,
    Position,
    PositionError,
    RecordError,
    Rules,
    RulesError,
    deal,
)


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("6S7S/6H/- SH", "3 fields"),
        ("6S7S/6H/- SH 0 extra", "3 fields"),
        ("6S7S/6H SH 0", "hand0/hand1/pile"),
        ("6S7/6H/- SH 0", "hand 0"),
        ("6S7X/6H/- SH 0", "'7X' is not a card"),
        ("6S7S/6S/- SH 0", "6S appears twice (hand 0 and hand 1)"),
        ("6S/7S/7S SH 0", "7S appears twice (hand 1 and pile)"),
        ("6S/7S/- SS 0", "trumps must differ"),
        ("6S/7S/- SX 0", "'X' is not a suit"),
        ("6S/7S/- SHD 0", "two suit letters"),
        ("6S/7S/- SH 2", "turn must be 0 or 1"),
        ("6S//- SH 0", "hand 1"),
    ],
)
def test_bad_positions_are_refused_by_name(text: str, fragment: str) -> None:
    with pytest.raises(PositionError, match=None) as info:
        Position.from_notation(text)
    assert fragment in str(info.value)


def test_lenient_position_input_is_canonicalised() -> None:
    position = Position.from_notation("as6s/th/- sh 1")
    assert position.notation() == "6SAS/TH/- SH 1"


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("ks 6h", "KS,6H"),
        ("K♠,6♥", "KS,6H"),
        ("10d", "TD"),
        ("Take", "take"),
        ("7s+ah", "7S,AH"),
        ("10♦ , j♣", "TD,JC"),
    ],
)
def test_lenient_moves(text: str, canonical: str) -> None:
    move = Move.parse(text)
    assert str(move) == canonical
    assert Move.parse(str(move)) is move


@pytest.mark.parametrize("text", ["", "ks,", "ks 6h 7h", "take 6h", "ks,ks", "11s", "k", ",", "zz"])
def test_bad_moves(text: str) -> None:
    with pytest.raises(MoveError):
        Move.parse(text)


def test_card_errors() -> None:
    with pytest.raises(CardError, match="'5S' is not a card"):
        Card.parse("5S")
    with pytest.raises(CardError):
        Card(36)


def test_illegal_move_message_names_the_fault() -> None:
    position = Position.from_notation("6S7SAH/TDQD9C/7C8C SH 0")
    with pytest.raises(IllegalMoveError, match="AH does not beat 8C"):
        position.play(Move.parse("AH,6S"))
    with pytest.raises(IllegalMoveError, match="does not hold TD"):
        position.play(Move.parse("TD"))
    with pytest.raises(IllegalMoveError, match="must beat"):
        position.play(Move.parse("take"))
    with pytest.raises(IllegalMoveError, match="second card"):
        position.play(Move.parse("6S"))


def test_rules_errors() -> None:
    with pytest.raises(RulesError):
        Rules(pickup="sometimes")
    with pytest.raises(RulesError):
        Rules(max_moves=0)
    with pytest.raises(RulesError):
        Rules.parse("pickup=forced colour=red")
    with pytest.raises(PositionError):
        deal(b"", 2, "SH")
    with pytest.raises(PositionError):
        deal(b"", 0, "SS")


def _record() -> str:
    game = Game.from_deal(bytes(32), 0, "SH", Players="Ann vs Bob")
    for move in ["QS", "KS,6S", "7S,6H", "9H,6D"]:
        game.play(move)
    return game.to_record()


def _corrupt(old: str, new: str) -> str:
    record = _record()
    assert old in record
    return record.replace(old, new, 1)


@pytest.mark.parametrize(
    ("record", "line", "fragment"),
    [
        ("", 1, "not a game record"),
        ("hello\n", 1, "not a game record"),
        (_corrupt("Dealer: 0", "Dealer 0"), 3, "not a 'Key: value' header"),
        (_corrupt("Dealer: 0", "Dealer: 1"), 7, "not the deal"),
        (_corrupt("Seed: 00", "Seed: zz"), 2, "unreadable"),
        (_corrupt("Players: Ann vs Bob", "Trumps: SH"), 5, "appears twice"),
        (_corrupt("pickup=forced", "pickup=never"), 6, "pickup must be"),
        (_corrupt(" SH 1\n", " SH 3\n"), 7, "turn must be 0 or 1"),
        (_corrupt("2. KS,6S", "3. KS,6S"), 11, "move number 3 where 2 was due"),
        (_corrupt("2. KS,6S", "2. KS;6S"), 11, "'KS;6S'"),
        (_corrupt("2. KS,6S", "2. AH,6S"), 11, "move 2 (AH,6S) is not legal"),
        (_corrupt("3. 7S,6H", "3 7S,6H"), 12, "not a numbered move"),
        (_corrupt("Result: *", "Result: 1-0 out"), 8, "the moves give '*'"),
    ],
)
def test_corrupt_records_are_refused_naming_the_line(record: str, line: int, fragment: str) -> None:
    with pytest.raises(RecordError) as info:
        Game.from_record(record)
    assert info.value.line == line, str(info.value)
    assert fragment in str(info.value)


def test_a_record_without_start_is_refused() -> None:
    with pytest.raises(RecordError, match="no 'Start:'"):
        Game.from_record("# Your trumps game record\nResult: *\n")


def test_moves_after_the_end_are_refused() -> None:
    game = Game(Position.from_notation("AC/7H8H/KC SH 0"))
    game.play("AC")
    record = game.to_record() + "2. 7H\n"
    with pytest.raises(RecordError, match="game is over"):
        Game.from_record(record)


@given(st.text(max_size=80))
def test_any_text_is_a_position_or_a_position_error(text: str) -> None:
    with contextlib.suppress(PositionError):
        Position.from_notation(text)


@given(st.text(max_size=20))
def test_any_text_is_a_move_or_a_move_error(text: str) -> None:
    with contextlib.suppress(MoveError):
        Move.parse(text)


@given(st.text(max_size=300))
def test_any_text_is_a_record_or_a_record_error(text: str) -> None:
    with contextlib.suppress(RecordError):
        Game.from_record("# Your trumps game record\n" + text)


@pytest.mark.parametrize(
    "record",
    [
        "# Your trumps game record\nRules: max_moves=²\nStart: 6S/7S/- SH 0\nResult: *\n",
        "# Your trumps game record\nStart: 6S/7S/- SH 0\nResult: *\n\n" + "9" * 5000 + ". 6S\n",
        "# Your trumps game record\nStart: 6S/7S/- SH 0\n",
    ],
)
def test_odd_records_raise_only_record_errors(record: str) -> None:
    with pytest.raises(RecordError):
        Game.from_record(record)


def test_records_round_trip_odd_header_values_and_a_bom() -> None:
    game = Game(Position.from_notation("6S/7S/- SH 0"), {"Players": " Ann  vs Bob ", "Note": "a\u2028b\x85c"})
    again = Game.from_record("\ufeff" + game.to_record())
    assert again == game


@pytest.mark.parametrize(
    ("key", "value"), [("Two words", "x"), ("Note", "line\nbreak"), ("Result", "1-0 out")]
)
def test_headers_that_cannot_be_written_are_refused(key: str, value: str) -> None:
    with pytest.raises(RecordError, match="cannot be written"):
        Game(Position.from_notation("6S/7S/- SH 0"), {key: value})


def test_a_tab_separates_the_cards_of_a_move() -> None:
    assert str(Move.parse("ks\t6h")) == "KS,6H"
