"""The move line: what is typed there, the question it may be answering, the cards picked
with the arrow keys or the mouse, the highlight, and reading a typed move.

Reading goes through ``engine.Move.parse`` (after the language's rank letters are made
canonical); only when it refuses does this module say, in the player's words, what is wrong.

>>> from engine import Card
>>> hand = tuple(Card.parse(c) for c in ("KS", "6H", "TD"))
>>> line = MoveLine()
>>> str(line.parse("3 1", hand)), str(line.parse("k♠ 6h", hand)), str(line.parse("take", hand))
('TD,KS', 'KS,6H', 'take')
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field

from prompt_toolkit.buffer import Buffer
from prompt_toolkit.document import Document

from cli.app.cards import canonical_ranks, card_text, count_cards, face_letters, move_text
from cli.i18n import _
from engine import TAKE, Card, Move, NotationError
from engine.moves import split_cards

MOVE_LINE_LENGTH = 300
"""The most characters the move line holds (a move, an answer or a chat line): pasting more
is cut there, so that a pasted page cannot freeze the input."""


@dataclass(frozen=True)
class Question:
    """A question answered on the move line: ``answers`` maps what may be typed to the answer."""

    prompt: str
    answers: dict[str, str]
    default: str
    action: Callable[[str], None]
    not_before: float = 0.0
    """The monotonic time before which an empty Enter is ignored."""
    labels: dict[str, str] = field(default_factory=dict)
    """How an answer is shown when it differs from the answer itself (``"yes"``: ``"так"``)."""
    cancel: str | None = None
    """The answer Ctrl-C gives, the one that leaves everything as it is (``"no"`` to quitting);
    ``None``: none does (the trump suit), and Ctrl-C leaves the program, as between games."""

    def choices(self) -> list[str]:
        """The distinct answers as shown, for completion."""
        return [self.labels.get(a, a) for a in dict.fromkeys(self.answers.values())]

    def answer(self, typed: str) -> str | None:
        """The answer ``typed`` gives (an empty line: the default); ``None`` when it gives none.

        An empty line before ``not_before`` gives ``""``: ignored, not refused.
        """
        typed = typed.strip()
        if typed:
            return self.answers.get(typed.lower())
        return "" if time.monotonic() < self.not_before else self.default

    def reminder(self) -> str:
        """What to type instead of an answer that is none."""
        default = self.labels.get(self.default, self.default)
        return _("Please answer {options} (or just Enter for {default}).").format(
            options="/".join(self.choices()), default=default
        )


def yes_no(
    prompt: str,
    default: str,
    action: Callable[[str], None],
    not_before: float = 0.0,
    cancel: str | None = "no",
) -> Question:
    """A yes/no question: ``y``, ``yes``, ``n``, ``no``, and the words of the language in use.

    ``default`` and the answers passed to ``action`` are ``"yes"`` or ``"no"``; the
    choices shown (completion, the reminder) are the translated words. Ctrl-C answers
    ``cancel`` (``None``: it does not answer, see :attr:`Question.cancel`).
    """
    answers = {"y": "yes", "yes": "yes", "n": "no", "no": "no"}
    # Translators: the words (and one-letter forms) a player may type to answer a yes/no question.
    for word in _("y yes").lower().split():
        answers[word] = "yes"
    for word in _("n no").lower().split():
        answers[word] = "no"
    labels = {"yes": _("yes"), "no": _("no")}
    answers |= {label.lower(): answer for answer, label in labels.items()}
    return Question(prompt, answers, default, action, not_before, labels, cancel)


class MoveLine:
    """The move line's state: its buffer, the question, the picked cards and the highlight."""

    def __init__(self, ascii: bool = False) -> None:
        """``ascii``: cards put on the line are written with suit letters (``10H``), else as the
        board shows them (``10♥``)."""
        self.ascii = ascii
        self.buffer = Buffer(multiline=False, name="move-line", on_text_changed=self._cap)
        self.on_cut: Callable[[], None] = lambda: None
        """Called when text beyond :data:`MOVE_LINE_LENGTH` was cut off (a pasted page)."""
        self.question: Question | None = None
        self.picked: list[Card] = []
        """The cards chosen so far (a beating card held while the second is chosen)."""
        self.cursor = 0
        """The highlighted card's index in the hand."""
        self.highlighted = False
        """Whether the player has moved the highlight (arrow keys) since their last move: only
        then does Enter on an empty line pick the highlighted card, so a stray Enter plays nothing."""

    def _cap(self, buffer: Buffer) -> None:
        if len(buffer.text) > MOVE_LINE_LENGTH:
            buffer.text = buffer.text[:MOVE_LINE_LENGTH]
            self.on_cut()

    # ------------------------------------------------------------ questions

    def ask(self, question: Question) -> None:
        """Put a question on the move line."""
        self.question = question
        self.buffer.reset()

    def clear(self) -> None:
        """An empty line: no question, nothing picked."""
        self.question = None
        self.picked.clear()
        self.buffer.reset()

    # -------------------------------------------------------------- picking

    def picked_text(self) -> str:
        """The move line's text while cards are being picked (empty, or ``K♠ ``: as the board
        writes the card)."""
        return "".join(f"{card_text(c, self.ascii)} " for c in self.picked)

    def hold(self, cards: list[Card]) -> None:
        """Hold ``cards`` (a beating card) while the next one is chosen; the line shows them."""
        self.picked = cards
        self.buffer.set_document(Document(self.picked_text()))

    def put(self, text: str) -> None:
        """Put ``text`` on the line (a hint), dropping what was picked."""
        self.picked.clear()
        self.buffer.set_document(Document(text))

    def played(self) -> None:
        """A move was played: the line empties and the highlight hides until an arrow key."""
        self.clear()
        self.highlighted = False

    def new_hand(self) -> None:
        """A new game: nothing picked, the highlight back on the first card, hidden."""
        self.played()
        self.cursor = 0

    def marked(self, hand: Sequence[Card]) -> list[Card]:
        """The cards picked, or those of the move being typed: the hand shows them marked."""
        if self.picked or not self.buffer.text.strip():
            return self.picked
        try:
            return list(self.parse(self.buffer.text, hand).cards)
        except NotationError:
            return []

    def move_cursor(self, step: int, hand: Sequence[Card]) -> None:
        """Arrow keys: highlight the next or previous card (the first press shows the highlight
        where it stands)."""
        if hand and not self._show_highlight():
            self.cursor = (self.cursor + step) % len(hand)

    def move_to_playable(self, step: int, hand: Sequence[Card], playable: Collection[Card]) -> None:
        """Up and down arrows: highlight the previous or next card that can be played."""
        if self._show_highlight():
            return
        for distance in range(1, len(hand) + 1):
            index = (self.cursor + step * distance) % len(hand)
            if hand[index] in playable:
                self.cursor = index
                return

    def settle(self, hand: Sequence[Card], playable: Collection[Card]) -> None:
        """Keep the highlight on a card that can be played, when there is one."""
        if not hand:
            return
        self.cursor = min(self.cursor, len(hand) - 1)
        if playable and hand[self.cursor] not in playable:
            self.cursor = next(i for i, c in enumerate(hand) if c in playable)

    def _show_highlight(self) -> bool:
        """Show the highlight if it was hidden; whether it was."""
        hidden = not self.highlighted
        self.highlighted = True
        return hidden

    # -------------------------------------------------------------- reading

    def is_take(self, text: str) -> bool:
        """Whether ``text`` asks to take, after any card held to beat with (``KS take``)."""
        typed = text.removeprefix(self.picked_text()).strip().lower()
        return typed in ("take", _("take").lower())

    def parse(
        self, text: str, hand: Sequence[Card], take_count: int | None = None, legal: Sequence[Move] = ()
    ) -> Move:
        """A move from the move line: notation (``ks 6h``, ``K♠,6♥``, ``take``, the language's
        rank letters and word for take) read by ``engine.Move.parse``, or the numbers of the
        cards in ``hand`` (``3 7``). ``take_count``: what a pick-up takes now, for the error;
        ``legal``: the moves legal now, the examples it gives (never ``take`` where taking is
        not allowed).

        The :class:`NotationError` raised says what is wrong, for the screen.
        """
        numbers = text.replace(",", " ").split()
        if numbers and all(re.fullmatch("[0-9]+", n) for n in numbers):
            cards = _numbered_cards(numbers, hand)
            if len(cards) == 2 and cards[0] == cards[1]:
                raise NotationError(_("A move cannot play the same card twice."))
            if len(cards) > 2:
                raise NotationError(_not_a_move(text, hand, legal, self.ascii))
            return Move(*cards)
        if self.is_take(text):
            return TAKE
        try:
            return Move.parse(canonical_ranks(text))
        except NotationError:
            raise NotationError(_why_not_a_move(text, take_count, hand, legal, self.ascii)) from None


QUOTED = 24
"""The most characters of the player's text a refusal quotes: the reason always shows (a pasted
page quoted whole pushed it out of sight)."""


def quoted(text: str) -> str:
    """What a refusal quotes of ``text``: at most :data:`QUOTED` characters, ``…`` for the rest.

    >>> quoted("  kx "), quoted("x" * 30)
    ('kx', 'xxxxxxxxxxxxxxxxxxxxxxx…')
    """
    text = text.strip()
    return text if len(text) <= QUOTED else text[: QUOTED - 1] + "…"


def _why_not_a_move(
    text: str, take_count: int | None, hand: Sequence[Card], legal: Sequence[Move], ascii: bool
) -> str:
    """What is wrong with a written move that ``Move.parse`` refused, in the player's words."""
    parts = split_cards(text)
    if parts[0].lower() in ("take", _("take").lower()):
        cards = count_cards(take_count) if take_count is not None else "?"
        return _("{text!r}: a pick-up takes what the rules say ({cards} now); type take alone.").format(
            text=quoted(text), cards=cards
        )
    for part in filter(None, parts):
        try:
            Card.parse(canonical_ranks(part))
        except NotationError:
            faces = face_letters()
            ranks = "6-10 J Q K A" if faces == "JQKA" else f"6-10 {' '.join(faces)}"
            return _("{text!r} is not a card: a rank {ranks} and a suit S H D C.").format(
                text=quoted(part), ranks=ranks
            )
    if len(parts) == 2 and parts[0].upper() == parts[1].upper():
        return _("A move cannot play the same card twice.")
    return _not_a_move(text, hand, legal, ascii)


def _not_a_move(text: str, hand: Sequence[Card], legal: Sequence[Move], ascii: bool) -> str:
    """Why ``text`` is no move, with moves that are: some legal now (``take`` only where it is),
    and one of them by its cards' numbers in ``hand``."""
    examples = [m for m in legal if m.is_take][:1] + [m for m in legal if len(m.cards) == 1][:1]
    examples += [m for m in legal if len(m.cards) == 2][:1]
    numbered = next((m for m in reversed(examples) if m.cards and all(c in hand for c in m.cards)), None)
    moves = ", ".join(move_text(m, ascii) for m in examples)
    if not examples:  # nothing legal to show (not your turn): the forms only
        return _("{text!r} is not a move: a move is one card (7♣), or one that beats and one to lay (8♣ 9♦).").format(
            text=quoted(text)
        )
    if numbered is None:
        return _("{text!r} is not a move: try {moves}.").format(text=quoted(text), moves=moves)
    return _("{text!r} is not a move: try {moves}, or by card numbers: {numbers}.").format(
        text=quoted(text),
        moves=moves,
        numbers=" ".join(str(hand.index(c) + 1) for c in numbered.cards),
    )


def _numbered_cards(numbers: list[str], hand: Sequence[Card]) -> list[Card]:
    for n in numbers:
        if len(n) > 3 or not 1 <= int(n) <= len(hand):  # int() refuses 4300 digits and more
            raise NotationError(
                _("There is no card {number}: your cards are numbered 1 to {count}.").format(
                    number=n, count=len(hand)
                )
            )
    return [hand[int(n) - 1] for n in numbers]
