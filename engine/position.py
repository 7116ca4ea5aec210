"""Positions: both hands, the pile, the two trumps and the side to move.

>>> p = Position.from_notation("6S7SAH/TDQD9C/7C8C SH 0")
>>> [str(m) for m in p.legal_moves()]
['6S,7S', '6S,AH', '7S,6S', '7S,AH']
>>> p.play(Move.parse("7s ah")).notation()
'6S/TDQD9C/7C8C7SAH SH 1'
>>> Position.from_notation(p.notation()) == p
True
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import NamedTuple

from engine.cards import ALL_CARDS, BEATERS, SUITS, Card, cards_of, parse_suit
from engine.errors import CardError, IllegalMoveError, NotationError, PositionError
from engine.moves import PAIR_MOVES, SINGLE_MOVES, TAKE, Move
from engine.rules import Rules

DEFAULT_RULES = Rules()
_ACE = 8


class Reason(StrEnum):
    """Why a game ended."""

    OUT = "out"
    """A player played their last card and won."""
    LAST_CARD = "last card"
    """A player went out, but the other's single card beats the top card: a draw."""
    BOTH_OUT = "both out"
    """Neither player holds a card (only in hand-made positions): a draw."""
    REPETITION = "repetition"
    """The same position came up for the third time: a draw."""
    MOVE_CAP = "move cap"
    """The game reached the rules' ``max_moves`` without ending: a draw."""


class Illegal(StrEnum):
    """Which rule an illegal move breaks (:meth:`Position.why_illegal`)."""

    GAME_OVER = "game over"
    """A hand is empty: nobody moves any more."""
    NOT_HELD = "not held"
    """The move plays a card the side to move does not hold."""
    EMPTY_PILE = "empty pile"
    """On the empty pile a player lays exactly one card."""
    MUST_BEAT = "must beat"
    """A pick-up while a card beats, under the forced pick-up rule."""
    NO_BEAT = "does not beat"
    """The first card does not beat the top card."""
    NO_SECOND_CARD = "no second card"
    """A beat must be followed by a second card unless it was the last card."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a game ended: ``winner`` is 0, 1, or ``None`` for a draw."""

    winner: int | None
    reason: Reason


class Position(NamedTuple):
    """An immutable, hashable game position.

    The fields are the fast representation the AI searches on: ``hand_sets``
    holds each player's hand as a 36-bit set, ``pile`` the pile from bottom to
    top, ``trumps`` each player's trump suit (0-3), ``turn`` the player to move.
    """

    hand_sets: tuple[int, int]
    pile: tuple[Card, ...]
    trumps: tuple[int, int]
    turn: int
    rules: Rules = DEFAULT_RULES

    # ----------------------------------------------------------------- notation

    @classmethod
    def from_notation(cls, text: str, rules: Rules = DEFAULT_RULES) -> Position:
        """Read a position in the notation of notation.md (cards in any case).

        >>> Position.from_notation("6S6S/-/- SH 0")
        Traceback (most recent call last):
        ...
        engine.errors.PositionError: card 6S appears twice (hand 0 and hand 0)
        """
        fields = text.split()
        if len(fields) != 3:
            raise PositionError(f"a position has 3 fields (cards, trumps, turn), {text!r} has {len(fields)}")
        places, trump_text, turn_text = fields
        parts = places.split("/")
        if len(parts) != 3:
            raise PositionError(
                f"the cards field needs hand0/hand1/pile, {places!r} has {len(parts)} part(s)"
            )
        seen: dict[Card, str] = {}
        lists: list[tuple[Card, ...]] = []
        for name, part in zip(("hand 0", "hand 1", "pile"), parts, strict=True):
            cards = _parse_cards(part, name)
            for card in cards:
                if card in seen:
                    raise PositionError(f"card {card} appears twice ({seen[card]} and {name})")
                seen[card] = name
            lists.append(cards)
        trumps = parse_trumps(trump_text)
        if turn_text not in ("0", "1"):
            raise PositionError(f"the turn must be 0 or 1, not {turn_text!r}")
        hand0 = sum(1 << c for c in lists[0])
        hand1 = sum(1 << c for c in lists[1])
        return cls((hand0, hand1), lists[2], trumps, int(turn_text), rules)

    def notation(self) -> str:
        """The canonical notation of this position."""
        return (
            f"{_cards_text(cards_of(self.hand_sets[0]))}/{_cards_text(cards_of(self.hand_sets[1]))}"
            f"/{_cards_text(self.pile)} {SUITS[self.trumps[0]]}{SUITS[self.trumps[1]]} {self.turn}"
        )

    def __str__(self) -> str:
        return self.notation()

    def __repr__(self) -> str:
        if self.rules == DEFAULT_RULES:
            return f"Position.from_notation({self.notation()!r})"
        return f"Position.from_notation({self.notation()!r}, {self.rules!r})"

    # ------------------------------------------------------------ what is seen

    def hand(self, player: int) -> tuple[Card, ...]:
        """A player's cards in index order (by suit S H D C, then rank)."""
        return cards_of(self.hand_sets[player])

    @property
    def top(self) -> Card | None:
        """The top card of the pile, or ``None`` when the pile is empty."""
        return self.pile[-1] if self.pile else None

    def take_count(self) -> int:
        """How many cards a pick-up by the side to move would take now.

        >>> Position.from_notation("6H7H/8C9C/8D9DTDJDQDKS SH 0").take_count()
        5
        """
        pile = self.pile
        if not pile:
            return 0
        top = pile[-1]
        if top // 9 != self.trumps[self.turn]:
            return min(3, len(pile))
        if top % 9 == _ACE:
            return len(pile)
        return min(5, len(pile))

    def beats(self, card: Card) -> bool:
        """Whether ``card`` would beat the top card for the side to move.

        >>> p = Position.from_notation("6S7SAH/TDQD9C/7C8C SH 0")
        >>> p.beats(Card.parse("6S")), p.beats(Card.parse("AH"))
        (True, False)
        """
        pile = self.pile
        return bool(pile) and bool(BEATERS[self.trumps[self.turn]][pile[-1]] >> card & 1)

    def beaters(self) -> tuple[Card, ...]:
        """The cards of the side to move that beat the top card."""
        if not self.pile:
            return ()
        return cards_of(self.hand_sets[self.turn] & BEATERS[self.trumps[self.turn]][self.pile[-1]])

    def outcome(self) -> Outcome | None:
        """How the game stands on the rules of going out: ``None`` while it goes on.

        Repetition and the move cap need the game's history: see ``Game.result``.

        >>> Position.from_notation("-/6H/KD6SAC SH 1").outcome()
        Outcome(winner=None, reason=<Reason.LAST_CARD: 'last card'>)
        """
        hands = self.hand_sets
        if hands[0] and hands[1]:
            return None
        if not hands[0] and not hands[1]:
            return Outcome(None, Reason.BOTH_OUT)
        winner = 0 if not hands[0] else 1
        other = hands[1 - winner]
        if self.pile and other & (other - 1) == 0 and other & BEATERS[self.trumps[1 - winner]][self.pile[-1]]:
            return Outcome(None, Reason.LAST_CARD)
        return Outcome(winner, Reason.OUT)

    @property
    def is_over(self) -> bool:
        """Whether a hand is empty, so that the game has ended."""
        return not (self.hand_sets[0] and self.hand_sets[1])

    def card_count(self) -> int:
        """How many cards the position holds in all."""
        return self.hand_sets[0].bit_count() + self.hand_sets[1].bit_count() + len(self.pile)

    # ------------------------------------------------------------------- moves

    def legal_moves(self) -> list[Move]:
        """Every legal move, beats in card order, then ``take`` where allowed."""
        hands = self.hand_sets
        if not (hands[0] and hands[1]):
            return []
        hand = hands[self.turn]
        pile = self.pile
        if not pile:
            return [SINGLE_MOVES[c] for c in cards_of(hand)]
        beat_set = hand & BEATERS[self.trumps[self.turn]][pile[-1]]
        if not beat_set:
            return [TAKE]
        moves: list[Move]
        if beat_set == hand and hand & (hand - 1) == 0:
            moves = [SINGLE_MOVES[hand.bit_length() - 1]]
        else:
            held = cards_of(hand)
            moves = [PAIR_MOVES[36 * b + s] for b in cards_of(beat_set) for s in held if s != b]
        if self.rules.voluntary:
            moves.append(TAKE)
        return moves

    def is_legal(self, move: Move) -> bool:
        """Whether ``move`` is legal here."""
        return self.why_illegal(move) is None

    def why_illegal(self, move: Move) -> Illegal | None:
        """Which rule ``move`` breaks here, or ``None`` when it is legal.

        >>> p = Position.from_notation("6S7SAH/TDQD9C/7C8C SH 0")
        >>> p.why_illegal(Move.parse("AH,6S")), p.why_illegal(Move.parse("take"))
        (<Illegal.NO_BEAT: 'does not beat'>, <Illegal.MUST_BEAT: 'must beat'>)
        """
        hands = self.hand_sets
        if not (hands[0] and hands[1]):
            return Illegal.GAME_OVER
        hand = hands[self.turn]
        pile = self.pile
        cards = move.cards
        if move.mask & ~hand:
            return Illegal.NOT_HELD
        if not pile:
            return None if len(cards) == 1 else Illegal.EMPTY_PILE
        beat_set = hand & BEATERS[self.trumps[self.turn]][pile[-1]]
        if not cards:
            return Illegal.MUST_BEAT if beat_set and not self.rules.voluntary else None
        if not beat_set >> cards[0] & 1:
            return Illegal.NO_BEAT
        if len(cards) == 1 and hand != 1 << cards[0]:
            return Illegal.NO_SECOND_CARD
        return None

    def play(self, move: Move) -> Position:
        """The position after ``move``; :class:`IllegalMoveError` if it is not legal."""
        reason = self.why_illegal(move)
        if reason is not None:
            raise IllegalMoveError(f"{move} is not legal in {self.notation()}: {self._explain(move, reason)}")
        return self._after(move)

    def _explain(self, move: Move, reason: Illegal) -> str:
        """``reason`` in words, with the cards concerned (the interface has its own, translated)."""
        top = self.pile[-1] if self.pile else None
        if reason is Illegal.NOT_HELD:
            missing = next(c for c in move.cards if not self.hand_sets[self.turn] >> c & 1)
            return f"player {self.turn} does not hold {missing}"
        if reason is Illegal.MUST_BEAT:
            return f"{self.beaters()[0]} beats {top}, so you must beat (forced pick-up rule)"
        if reason is Illegal.NO_BEAT:
            return f"{move.cards[0]} does not beat {top}"
        if reason is Illegal.NO_SECOND_CARD:
            return f"after beating with {move.cards[0]} you must play a second card"
        if reason is Illegal.EMPTY_PILE:
            return "the pile is empty: play one card onto it"
        return "the game is over"

    def _after(self, move: Move) -> Position:
        # The caller has checked legality: this is the search's fast path.
        turn = self.turn
        hands = self.hand_sets
        pile = self.pile
        cards = move.cards
        if cards:
            mover = hands[turn] ^ move.mask
            pile = pile + cards
        else:
            count = self.take_count()
            taken = pile[-count:]
            pile = pile[:-count]
            mover = hands[turn]
            for card in taken:
                mover |= 1 << card
        new_hands = (mover, hands[1]) if turn == 0 else (hands[0], mover)
        return _new_position(Position, (new_hands, pile, self.trumps, 1 - turn, self.rules))


_new_position = tuple.__new__
"""Builds a :class:`Position` from its five fields without the generated ``__new__`` (a call less a move)."""


def parse_trumps(text: str) -> tuple[int, int]:
    """Two different suits, player 0's first: ``"SH"`` is ``(0, 1)``."""
    if len(text) != 2:
        raise PositionError(f"trumps must be two suit letters like SH, not {text!r}")
    try:
        pair = (parse_suit(text[0]), parse_suit(text[1]))
    except NotationError as exc:
        raise PositionError(f"trumps {text!r}: {exc}") from None
    if pair[0] == pair[1]:
        raise PositionError(f"the two trumps must differ, both are {SUITS[pair[0]]}")
    return pair


def _parse_cards(text: str, name: str) -> tuple[Card, ...]:
    if text == "-":
        return ()
    if not text or len(text) % 2:
        raise PositionError(f"{name} {text!r} is not a list of two-character cards (or -)")
    try:
        return tuple(Card.parse(text[i : i + 2]) for i in range(0, len(text), 2))
    except CardError as exc:
        raise PositionError(f"{name}: {exc}") from None


_CARD_TEXT = tuple(map(str, ALL_CARDS))
"""Each card's text by its index: a notation reads it here, not through ``Card.__str__`` (half the time)."""


def _cards_text(cards: tuple[Card, ...]) -> str:
    return "".join(map(_CARD_TEXT.__getitem__, cards)) or "-"
