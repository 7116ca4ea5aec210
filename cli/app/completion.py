"""Tab completion on the move line: the legal moves, or the answers to a question."""

from __future__ import annotations

import re
from collections.abc import Iterable

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document

from cli.app.cards import canonical_ranks, move_text
from cli.app.screen import GameScreen
from cli.i18n import _
from engine.cards import SYMBOL_LETTERS
from engine.moves import split_cards

_SUIT_LETTERS = str.maketrans(SYMBOL_LETTERS)


def normalize(text: str) -> str:
    """Typed text in upper-case canonical move notation, as far as it goes (the language's rank
    letters read as the canonical ones).

    >>> normalize("k♠ 6"), normalize("10d,"), normalize("ta")
    ('KS,6', 'TD,', 'TA')
    """
    text = canonical_ranks(text).strip().upper().translate(_SUIT_LETTERS).replace("10", "T")
    return ",".join(split_cards(text))


class MoveCompleter(Completer):
    """Completes the move line from what the screen allows now."""

    def __init__(self, screen: GameScreen) -> None:
        self.screen = screen

    def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterable[Completion]:
        """Legal moves (or answers) that start with what has been typed (``вз`` for ``взяти``, take)."""
        typed = document.text_before_cursor
        question = self.screen.line.question
        if question is not None:
            for answer in question.choices():
                if answer.lower().startswith(typed.strip().lower()):
                    yield Completion(answer, -len(typed))
            return
        if not self.screen.flow.my_turn or self.screen.flow.game is None:
            return
        if re.fullmatch(r"[0-9 ,]*[0-9][0-9 ,]*", typed):
            yield from self._by_numbers(typed)
            return
        prefix = normalize(typed)
        local_take = typed.strip().lower()
        ascii = self.screen.display.ascii
        for move in self.screen.flow.game.position.legal_moves():
            local = move.is_take and local_take and _("take").lower().startswith(local_take)
            if str(move).upper().startswith(prefix) or local:
                text = move_text(move, ascii)  # as the board writes it: 10♥ 6♠, not TH,6S
                yield Completion(text, -len(typed), display=text)

    def _by_numbers(self, typed: str) -> Iterable[Completion]:
        """The legal moves whose cards, by the numbers under them, start like ``typed``: the
        numbers of whole cards (``5 ``: the move beats with card 5), then the start of the next
        one's (``5 1``: lays card 1, or 10 to 19); written as the board writes cards."""
        hand = self.screen.flow.my_hand()
        numbers = typed.replace(",", " ").split()
        whole, start = (numbers, "") if typed[-1] in " ," else (numbers[:-1], numbers[-1])
        if any(len(n) > 2 or not 1 <= int(n) <= len(hand) for n in whole):
            return
        cards = [hand[int(n) - 1] for n in whole]
        assert self.screen.flow.game is not None
        for move in self.screen.flow.game.position.legal_moves():
            if list(move.cards[: len(cards)]) != cards or len(move.cards) < len(cards) + bool(start):
                continue
            if start and not str(hand.index(move.cards[len(cards)]) + 1).startswith(start):
                continue
            text = move_text(move, self.screen.display.ascii)
            yield Completion(text, -len(typed), display=text)
