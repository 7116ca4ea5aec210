"""The board as formatted text: hands, the pile and the move history.

Each function returns prompt_toolkit fragments, one list per screen line, so
the game and the replay viewer draw cards the same way. Cards are *chips*
three cells wide (`` K♠``, ``10♦``) with a gap; suits are set apart by one
more cell.

>>> from engine import Card
>>> hand = [Card.parse(c) for c in ("6S", "KS", "TH")]
>>> ["".join(t[1] for t in line) for line in hand_lines(hand, width=40, numbered=True)]
['  6♠  K♠  10♥', '   1   2    3']
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence

from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.mouse_events import MouseEvent, MouseEventType

from cli.app.cards import count_cards, move_text, rank_text, suit_class, suit_text
from cli.app.widths import cell_width
from cli.i18n import _, ngettext
from engine import Card, Game

Line = StyleAndTextTuples
CHIP = 4
"""Cells per card: a space and three for the card."""


def chip(
    card: Card,
    ascii: bool = False,
    extra: str = "",
    on_click: Callable[[Card], None] | None = None,
) -> Line:
    """One card as a chip: a space, then the rank right-aligned and the suit."""
    style = f"class:card {suit_class(card.suit)} {extra}".strip()
    text = f"{rank_text(card):>2}{suit_text(card.suit, ascii)}"
    if on_click is None:
        return [("", " "), (style, text)]
    return [("", " "), (style, text, _click(card, on_click))]


def _click(card: Card, on_click: Callable[[Card], None]) -> Callable[[MouseEvent], object]:
    def handler(event: MouseEvent) -> object:
        if event.event_type == MouseEventType.MOUSE_UP:
            on_click(card)
            return None
        return NotImplemented

    return handler


def hand_lines(
    cards: Sequence[Card],
    width: int,
    ascii: bool = False,
    trump: int | None = None,
    legal: Collection[Card] | None = None,
    cursor: int | None = None,
    picked: Collection[Card] = (),
    numbered: bool = False,
    on_click: Callable[[Card], None] | None = None,
) -> list[Line]:
    """A hand in rows of chips that fit ``width``, each row under its card numbers when ``numbered``.

    ``legal`` (when given) sets the cards that can be played apart from those
    that cannot; ``cursor`` highlights one card; trumps are marked.
    """
    rows: list[tuple[Line, Line]] = []
    cards_line: Line = []
    numbers_line: Line = []
    used = 0
    previous_suit: int | None = None
    for index, card in enumerate(cards):
        gap = 1 if previous_suit is not None and card.suit != previous_suit and used else 0
        if used + gap + CHIP > width and used:
            rows.append((cards_line, numbers_line))
            cards_line, numbers_line, used, gap = [], [], 0, 0
        previous_suit = card.suit
        classes = []
        if trump is not None and card.suit == trump:
            classes.append("class:card.trump")
        if legal is not None:
            classes.append("class:card.legal" if card in legal else "class:card.dim")
        if card in picked:
            classes.append("class:card.picked")
        if cursor == index:
            classes.append("class:highlight")
        if gap:
            cards_line.append(("", " "))
            numbers_line.append(("", " "))
        cards_line += chip(card, ascii, " ".join(classes), on_click)
        number_style = "class:number" if legal is None or card in legal else "class:number.dim"
        numbers_line.append((number_style, f"{index + 1:>{CHIP}}"))
        used += gap + CHIP
    if cards_line:
        rows.append((cards_line, numbers_line))
    lines: list[Line] = []
    for row_cards, row_numbers in rows:
        lines.append(row_cards)
        if numbered:
            lines.append(row_numbers)
    return lines


def pile_heading(size: int) -> Line:
    """``Pile  20 cards``, the heading of the pile (the game's and the replay's)."""
    return [("class:rule.label", " " + _("Pile")), ("class:muted", f"  {count_cards(size)}")]


def pile_lines(
    pile: Sequence[Card], width: int, ascii: bool = False, on_click: Callable[[Card], None] | None = None
) -> list[Line]:
    """The top of the pile, oldest visible card first, and a mark under the top card."""
    if not pile:
        return [[("class:muted", "  " + _("(empty)"))], []]
    fits = max(1, (width - 3) // CHIP)
    shown = pile[-fits:]
    line: Line = [("class:muted", " …")] if len(shown) < len(pile) else [("", "  ")]
    for i, card in enumerate(shown):
        line += chip(card, ascii, "class:card.top" if i == len(shown) - 1 else "class:card.under", on_click)
    middle = 2 + CHIP * (len(shown) - 1) + 2  # the cell under the top card's suit-side middle
    mark = _("top") + " ▲"
    return [line, [("class:muted", " " * max(0, middle - cell_width(mark) + 1) + mark)]]


def history_lines(
    game: Game,
    names: Sequence[str],
    height: int,
    ascii: bool = False,
    upto: int | None = None,
    name_cells: int = 9,
) -> list[Line]:
    """The last ``height`` moves up to move ``upto`` (all by default): number, player, cards.

    Players go by ``names``, cut to at most ``name_cells`` cells.
    """
    moves = game.moves[:upto]
    first = max(0, len(moves) - height)
    short = [fit(name, name_cells) for name in names]
    width = max(map(cell_width, short))
    lines: list[Line] = []
    for ply in range(first, len(moves)):
        mover = game.positions[ply].turn
        style = "class:history.latest" if ply == len(moves) - 1 else "class:history"
        lines.append(
            [
                ("class:muted", f"{ply + 1:>4} "),
                (f"class:history.player{mover}", pad(short[mover], width) + " "),
                (style, move_text(moves[ply], ascii)),
            ]
        )
    return lines


def fit(text: str, width: int) -> str:
    """``text`` cut to at most ``width`` terminal cells (see :mod:`cli.app.widths`).

    >>> fit("Bartholomew", 5), fit("खिलाड़ी", 3)
    ('Barth', 'खिल')
    """
    used = 0
    for index, char in enumerate(text):
        used += cell_width(char)
        if used > width:
            return text[:index]
    return text


def pad(text: str, width: int) -> str:
    """``text`` padded with spaces to ``width`` terminal cells."""
    return text + " " * max(0, width - cell_width(text))


def move_words(game: Game, ply: int, name: str | None, ascii: bool = False) -> str:
    """What move ``ply`` (from 1) of ``game`` did, as a sentence about player ``name`` (``None``:
    the local player): ``You played K♠ 6♥.``, ``Bob took 3 cards.``"""
    move = game.moves[ply - 1]
    # the count lets a language agree the verb with one card or more (Hindi खेला, खेले)
    if move.is_take:
        before, after = game.positions[ply - 1], game.positions[ply]
        taken = len(before.pile) - len(after.pile)
        if name is None:
            text = ngettext("You took {cards}.", "You took {cards}.", taken)
        else:
            text = ngettext("{name} took {cards}.", "{name} took {cards}.", taken)
        return text.format(name=name, cards=count_cards(taken))
    if name is None:
        text = ngettext("You played {cards}.", "You played {cards}.", len(move.cards))
    else:
        text = ngettext("{name} played {cards}.", "{name} played {cards}.", len(move.cards))
    return text.format(name=name, cards=move_text(move, ascii))


def trump_label(suit: int, ascii: bool = False) -> Line:
    """``trump ♠`` in the suit's colour."""
    return [("class:muted", _("trump") + " "), (f"class:card {suit_class(suit)}", suit_text(suit, ascii))]
