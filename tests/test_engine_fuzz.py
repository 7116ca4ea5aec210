"""Hostile and odd input to the notation readers, the records and the deal, and the move line's
reading (translated rank letters too): any text gives the engine's own error, naming the fault,
or the one thing it means; whatever the program writes reads back exactly."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cli import i18n
from cli.app.cards import card_text, face_letters, move_text
from cli.app.move_line import MoveLine
from engine import (
    TAKE,
    Card,
    Game,
    Move,
    MoveError,
    NotationError,
    Position,
    PositionError,
    RecordError,
    Rules,
    deal,
)
from engine.cards import ALL_CARDS, RANKS, SUIT_SYMBOLS, SUITS
from engine.moves import PAIR_MOVES, SINGLE_MOVES
from tests.test_engine_properties import positions, random_game

FEW = settings(max_examples=60, deadline=None)
ALL_MOVES = [TAKE, *SINGLE_MOVES, *(m for m in PAIR_MOVES if m is not TAKE)]
NOTATION_CHARACTERS = (
    RANKS + RANKS.lower() + SUITS + SUITS.lower() + SUIT_SYMBOLS + "♤♡♢♧10/- ,+\t\n\x00ß\u017f\u0666"
)
"""What notation is made of, and characters that look or fold like it: fuzzing with these reaches
far deeper into the readers than arbitrary text does."""
notation_text = st.text(alphabet=NOTATION_CHARACTERS, max_size=40) | st.text(max_size=40)


def _explains(error: Exception) -> None:
    """An error a person can act on: one line that is not empty."""
    message = str(error)
    assert message and "\n" not in message and "Traceback" not in message


@FEW
@given(notation_text)
def test_any_text_is_one_position_or_a_position_error(text: str) -> None:
    try:
        position = Position.from_notation(text)
    except PositionError as exc:
        _explains(exc)
        return
    assert Position.from_notation(position.notation()) == position


def _lenient(card: Card, draw: st.DrawFn) -> str:
    """``card`` as a person may type it: any case, ``10`` for ``T``, a black or white symbol."""
    rank = RANKS[card.rank]
    rank = (
        draw(st.sampled_from(["T", "t", "10"]))
        if rank == "T"
        else draw(st.sampled_from([rank, rank.lower()]))
    )
    suit = draw(
        st.sampled_from(
            [SUITS[card.suit], SUITS[card.suit].lower(), SUIT_SYMBOLS[card.suit], "♤♡♢♧"[card.suit]]
        )
    )
    return rank + suit


@st.composite
def typed_moves(draw: st.DrawFn) -> tuple[Move, str]:
    """A move and one of the many ways of typing it."""
    move = draw(st.sampled_from(ALL_MOVES))
    if move is TAKE:
        text = draw(st.sampled_from(["take", "TAKE", "Take", "tAkE"]))
    else:
        separator = draw(st.sampled_from([",", " ", "+", "\t", " , ", " +", ",  "]))
        text = separator.join(_lenient(card, draw) for card in move.cards)
    space = st.sampled_from(["", " ", "\t", "\u00a0", "\u3000"])
    return move, draw(space) + text + draw(space)


@FEW
@given(typed_moves())
def test_every_way_of_typing_a_move_reads_as_that_move(typed: tuple[Move, str]) -> None:
    move, text = typed
    assert Move.parse(text) is move
    assert Move.parse(str(move)) is move  # and its canonical form is itself


@FEW
@given(notation_text)
def test_any_text_is_one_move_or_a_move_error(text: str) -> None:
    try:
        move = Move.parse(text)
    except MoveError as exc:
        _explains(exc)
        return
    assert Move.parse(str(move)) is move


@pytest.mark.parametrize("text", ["10♥ 6♠", "10♥,6♠", "10h+6s", " 10♡  6♤ ", "T♥ 6S"])
def test_tens_and_symbols_read_as_the_cards_they_show(text: str) -> None:
    assert Move.parse(text) is Move(Card.parse("TH"), Card.parse("6S"))


@pytest.mark.parametrize("text", ["10", "1", "100H", "10HH", "0H", "T", "♥10", "10 ♥", "6S 10", "take take"])
def test_a_broken_ten_or_a_lone_rank_is_a_move_error(text: str) -> None:
    with pytest.raises(MoveError, match="is not a"):
        Move.parse(text)


LANGUAGES = sorted(i18n.LANGUAGES)


@pytest.fixture(params=LANGUAGES)
def language(request: pytest.FixtureRequest) -> str:
    """Each language of the game in turn (the temporary home puts English back after)."""
    code: str = request.param
    i18n.use(code)
    return code


def test_the_move_line_reads_every_move_as_the_board_writes_it(language: str) -> None:
    hand = ALL_CARDS
    line = MoveLine()
    for move in ALL_MOVES:
        for ascii in (False, True):
            shown = move_text(move, ascii)
            assert line.parse(shown, hand) is move, (language, shown)
            assert line.parse(shown.lower(), hand) is move, (language, shown.lower())
            assert line.parse(str(move), hand) is move, (language, str(move))  # canonical text too


def test_the_move_line_reads_a_picked_card_then_take(language: str) -> None:
    line = MoveLine()
    line.hold([Card.parse("KS")])
    assert line.is_take(line.picked_text() + "take")
    assert line.parse(move_text(TAKE), ALL_CARDS) is TAKE


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(LANGUAGES), notation_text, st.integers(0, 18))
def test_any_move_line_is_one_move_or_a_notation_error_in_every_language(
    code: str, text: str, held: int
) -> None:
    i18n.use(code)
    hand = ALL_CARDS[:held]
    letters = face_letters()
    typed = text.translate(str.maketrans("JQKA", letters)) if len(letters) == 4 else text
    try:
        move = MoveLine().parse(typed, hand)
    except NotationError as exc:
        _explains(exc)
    else:
        assert MoveLine().parse(move_text(move), ALL_CARDS) is move
    finally:
        i18n.use("en")


def test_card_numbers_beyond_the_hand_are_refused_by_name() -> None:
    hand = ALL_CARDS[:3]
    for text in ("0", "4", "1 4", "9" * 5000, "1 2 3"):
        with pytest.raises(NotationError):
            MoveLine().parse(text, hand)


def test_the_ukrainian_ace_and_ten_differ_as_printed() -> None:
    i18n.use("uk")
    try:
        ace, ten = Card.parse("AH"), Card.parse("TH")
        assert card_text(ace) == "\u0410♥" and card_text(ten) == "10♥"  # the Cyrillic A: no T to misread
        line = MoveLine()
        assert line.parse("\u0410♥", ALL_CARDS) is Move(ace) and line.parse("10♥", ALL_CARDS) is Move(ten)
        assert line.parse("\u0422♥", ALL_CARDS) is Move(ace)  # the Cyrillic T the cards showed before
    finally:
        i18n.use("en")


# ------------------------------------------------------------------ records


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32), st.sampled_from([Rules(), Rules("voluntary", False, 40)]))
def test_a_written_record_reads_back_and_writes_the_same_text(seed: int, rules: Rules) -> None:
    game = random_game(seed, rules)
    text = game.to_record()
    again = Game.from_record(text)
    assert again == game and again.to_record() == text and again.result == game.result


header_keys = st.from_regex(r"[A-Za-z][A-Za-z0-9_-]{0,12}", fullmatch=True).filter(
    lambda key: key not in ("Rules", "Start", "Result", "Seed")
)
header_values = st.text(st.characters(exclude_characters="\n\r"), max_size=30)


@FEW
@given(positions(), st.dictionaries(header_keys, header_values, max_size=4))
def test_any_writable_headers_read_back_exactly(position: Position, headers: dict[str, str]) -> None:
    game = Game(position, headers)
    text = game.to_record()
    again = Game.from_record(text)
    assert again == game and again.headers == headers and again.to_record() == text


@st.composite
def damaged_records(draw: st.DrawFn) -> str:
    """A valid record cut short, with characters or lines inserted, deleted or swapped. Its game
    stops at 200 moves (random play reaches the default 1 000 about a quarter of the time, and
    every example replays its record twice): the damage falls on the same kinds of line."""
    lines = random_game(draw(st.integers(0, 1000)), Rules(max_moves=200)).to_record().split("\n")
    for _ in range(draw(st.integers(1, 4))):
        where = draw(st.integers(0, len(lines) - 1))
        kind = draw(st.sampled_from(["cut", "insert", "delete", "swap", "line", "edit"]))
        line = lines[where]
        at = draw(st.integers(0, len(line)))
        if kind == "cut":
            lines = [*lines[:where], line[:at]]
        elif kind == "insert":
            lines[where] = line[:at] + draw(notation_text) + line[at:]
        elif kind == "delete":
            lines[where] = line[:at] + line[at + draw(st.integers(1, 3)) :]
        elif kind == "swap":
            other = draw(st.integers(0, len(lines) - 1))
            lines[where], lines[other] = lines[other], line
        elif kind == "line":
            lines.insert(where, draw(notation_text))
        else:
            lines[where] = (
                line[:at] + draw(st.sampled_from(["\r", "\ufeff", ":", ". ", "9" * 8, "\x00"])) + line[at:]
            )
    return "\n".join(lines)


@settings(max_examples=80, deadline=None)
@given(damaged_records())
def test_a_damaged_record_is_a_game_or_a_record_error_naming_why(record: str) -> None:
    try:
        game = Game.from_record(record)
    except RecordError as exc:
        _explains(exc)
        return
    assert Game.from_record(game.to_record()) == game


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("Dealer: 0", "Dealer: 2"),
        ("Dealer: 0", "Dealer: " + "1" * 5000),
        ("Dealer: 0", "Dealer: -1"),
        ("Trumps: SH", "Trumps: SS"),
        ("Trumps: SH", "Trumps: "),
        ("Seed: 00", "Seed: 0"),
        ("max_moves=1000", "max_moves=99999999"),
        ("max_moves=1000", "max_moves=0"),
        ("max_moves=1000", "max_moves=-5"),
        ("# Your trumps game record", "# Your trumps game record\x00"),
    ],
)
def test_odd_deal_and_rule_headers_are_record_errors(old: str, new: str) -> None:
    record = Game.from_deal(bytes(32), 0, "SH").to_record()
    assert old in record
    with pytest.raises(RecordError):
        Game.from_record(record.replace(old, new, 1))


# --------------------------------------------------------------------- deal


@FEW
@given(st.binary(max_size=300), st.sampled_from([0, 1]), st.permutations(SUITS), st.booleans())
def test_any_seed_deals_every_card_once(seed: bytes, dealer: int, suits: list[str], sixes: bool) -> None:
    trumps = suits[0] + suits[1]
    position = deal(seed, dealer, trumps, Rules(sixes=sixes))
    hands = position.hand_sets
    assert hands[0] & hands[1] == 0 and hands[0] | hands[1] == (1 << 36) - 1 and position.pile == ()
    assert position.turn == 1 - dealer
    if sixes:  # each ends with the six of their own trump (a count may move by one)
        assert all(hands[p] >> (9 * position.trumps[p]) & 1 for p in (0, 1))
    else:
        assert hands[0].bit_count() == hands[1].bit_count() == 18
    assert deal(seed, dealer, trumps.lower(), Rules(sixes=sixes)) == position  # a pure function of its input
    game = Game.from_deal(seed, dealer, trumps, Rules(sixes=sixes))
    assert Game.from_record(game.to_record()) == game


@FEW
@given(st.binary(max_size=8), st.one_of(st.integers(-3, 5), st.just(0)), st.text(max_size=4))
def test_any_dealer_and_trumps_deal_or_give_a_position_error(seed: bytes, dealer: int, trumps: str) -> None:
    try:
        position = deal(seed, dealer, trumps)
    except PositionError as exc:
        _explains(exc)
        return
    assert dealer in (0, 1) and position.trumps[0] != position.trumps[1]


def test_seeds_that_differ_in_one_byte_deal_differently() -> None:
    rng = random.Random(7)
    for _ in range(20):
        seed = rng.randbytes(rng.randrange(1, 64))
        flipped = bytes([seed[0] ^ 1]) + seed[1:]
        assert deal(seed, 0, "SH") != deal(flipped, 0, "SH")
