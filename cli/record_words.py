"""Why a game record cannot be read, in the language in use (no prompt_toolkit).

The engine says what is wrong with a record in English (:class:`engine.RecordError`, the
engine knows no languages). Its sentences are matched here against their English wording
(:data:`ENGINE_WORDS`), so that their fields (a line, a header, a move) are kept and the rest
is said in the player's words; a sentence the table does not know is shown as it is.

>>> from cli import i18n
>>> from engine import Game, RecordError
>>> try:
...     Game.from_record("hello")
... except RecordError as exc:
...     i18n.use("it"), record_reason(exc)
('it', "la prima riga non è '# Your trumps game record'")
>>> i18n.use("en")
'en'
"""

from __future__ import annotations

import re
from pathlib import Path

from cli.i18n import N_, _
from engine import RecordError

NOT_A_RECORD = "not a game record: the first line must be {title}"
"""The engine's words for a file that is no game record at all (its first line is wrong)."""
ENGINE_WORDS = {
    NOT_A_RECORD: N_("its first line is not {title}"),
    "{text} is not a 'Key: value' header": N_("{text} is not a header like 'Key: value'"),
    "header {key} appears twice": N_("the header {key} appears twice"),
    "{text} is not a numbered move like '12. KS,6H'": N_("{text} is not a numbered move like '12. KS,6H'"),
    "move number {number} where {expected} was due": N_("move number {number} where {expected} was due"),
    "move {number} ({move}) is not legal: {detail}": N_("move {number} ({move}) is not legal: {detail}"),
    "the record has no 'Result:' header (* for an unfinished game)": N_(
        "the record has no 'Result:' header (* for an unfinished game)"
    ),
    "the result says {claimed} but the moves give {played}": N_("the result says {claimed} but the moves give {played}"),
    "the record has no 'Start:' header with the start position": N_(
        "the record has no 'Start:' header with the start position"
    ),
    "start position: {detail}": N_("the start position is wrong: {detail}"),
    "header {key}: {value} cannot be written in a record": N_("the header {key}: {value} cannot be written in a record"),
    "the deal headers (Seed, Dealer, Trumps) are unreadable: {detail}": N_(
        "the deal headers (Seed, Dealer, Trumps) cannot be read: {detail}"
    ),
    "the start position is not the deal that Seed, Dealer and Trumps give": N_(
        "the start position is not the deal that Seed, Dealer and Trumps give"
    ),
    # a ``Rules:`` header the engine cannot read: its :class:`engine.RulesError`, as it is
    "{item} is not a rule option (pickup=, sixes=, max_moves=)": N_(
        "the Rules header: {item} is not a rule option (pickup=, sixes=, max_moves=)"
    ),
    "pickup must be 'forced' or 'voluntary', not {pickup}": N_(
        "the Rules header: pickup must be 'forced' or 'voluntary', not {pickup}"
    ),
    "sixes must be 'on' or 'off', not {sixes}": N_("the Rules header: sixes must be 'on' or 'off', not {sixes}"),
    "max_moves must be a whole number, not {max_moves}": N_(
        "the Rules header: max_moves must be a whole number, not {max_moves}"
    ),
    "max_moves must be a whole number 1-1000000, not {max_moves}": N_(
        "the Rules header: max_moves must be a whole number 1-1000000, not {max_moves}"
    ),
}
"""The sentences of :class:`engine.RecordError` (``Game.from_record``), as the engine writes them
(its quoted values are the fields), and what the player reads instead; a field named ``detail``
is said again by :data:`DETAIL_WORDS`."""
PLACE_WORDS = {"hand 0": N_("hand 0"), "hand 1": N_("hand 1"), "pile": N_("the pile")}
"""Where the start position holds a card, as the engine names it (a field ending in ``place``)."""
POSITION_WORDS = {
    "a position has 3 fields (cards, trumps, turn), {text} has {count}": N_(
        "a position has 3 fields (cards, trumps, turn), {text} has {count}"
    ),
    "the cards field needs hand0/hand1/pile, {text} has {count} part(s)": N_(
        "the cards field needs hand0/hand1/pile, {text} has {count} part(s)"
    ),
    "card {card} appears twice ({first_place} and {place})": N_(
        "card {card} appears twice ({first_place} and {place})"
    ),
    "the turn must be 0 or 1, not {turn}": N_("the turn must be 0 or 1, not {turn}"),
    "trumps must be two suit letters like SH, not {text}": N_("trumps must be two suit letters like SH, not {text}"),
    "trumps {text}: {detail}": N_("trumps {text}: {detail}"),
    "{text} is not a suit: use one of S H D C or ♠ ♥ ♦ ♣": N_("{text} is not a suit: use one of S H D C or ♠ ♥ ♦ ♣"),
    "the two trumps must differ, both are {suit}": N_("the two trumps must differ, both are {suit}"),
    "{place} {text} is not a list of two-character cards (or -)": N_(
        "{place} {text} is not a list of two-character cards (or -)"
    ),
    "{place}: {detail}": N_("in {place}: {detail}"),
    "the dealer must be player 0 or 1, not {dealer}": N_("the dealer must be player 0 or 1, not {dealer}"),
    "Seed {text} is not hexadecimal, two digits a byte": N_("Seed {text} is not hexadecimal, two digits a byte"),
}
"""Why the start position or the deal headers cannot be read (the ``detail`` of ``start position:
…`` and of ``the deal headers … are unreadable: …``), as the engine writes it, and what the player
reads instead."""
MOVE_WORDS = {
    "player {player} does not hold {card}": N_("player {player} does not hold {card}"),
    "{card} beats {top}, so you must beat (forced pick-up rule)": N_(
        "{card} beats {top}, so the move must beat (forced pick-up rule)"
    ),
    "{card} does not beat {top}": N_("{card} does not beat {top}"),
    "after beating with {card} you must play a second card": N_(
        "after beating with {card} the move must play a second card"
    ),
    "the pile is empty: play one card onto it": N_("the pile is empty: the move must play one card onto it"),
    "the game is over": N_("the game is over"),
    "{text} is not a card: a rank 6 7 8 9 T J Q K A then a suit S H D C": N_(
        "{text} is not a card: a rank 6 7 8 9 T J Q K A then a suit S H D C"
    ),
    "write take, one card (7C) or a beat and a second card (8C,9D)": N_(
        "a move is take, one card (7C) or a beat and a second card (8C,9D)"
    ),
    "a move cannot play {card} twice": N_("a move cannot play {card} twice"),
}
"""Why the engine finds a recorded move illegal or unreadable (the ``detail`` of ``move N (…) is
not legal: …``: the engine's sentence after its first colon), as it writes it, and what the
player reads instead; the cards stay in the record's notation (``7S``), as the line shows them."""
DETAIL_WORDS = POSITION_WORDS | MOVE_WORDS
"""Every ``detail`` the engine puts in a sentence of :data:`ENGINE_WORDS` (or of its own); the
position's come first, so that ``hand 0: '1S' is not a card: …`` is matched as a place and a card."""

_FIELD = re.compile(r"\{(\w+)\}")


def _pattern(wording: str) -> re.Pattern[str]:
    """A pattern matching what the engine's ``wording`` becomes once its fields are filled in."""
    parts, end = [], 0
    places = "|".join(map(re.escape, PLACE_WORDS))
    for field in _FIELD.finditer(wording):
        name = field.group(1)
        # a place is one of a few names: ``{place}: {detail}`` must not match any sentence with a colon
        value = places if name.endswith("place") else ".*?"
        parts += [re.escape(wording[end : field.start()]), f"(?P<{name}>{value})"]
        end = field.end()
    return re.compile("".join([*parts, re.escape(wording[end:])]), re.DOTALL)


_PATTERNS = [(wording, _pattern(wording)) for wording in ENGINE_WORDS]
_DETAIL_PATTERNS = [(wording, _pattern(wording)) for wording in DETAIL_WORDS]


def _matched(
    message: str, patterns: list[tuple[str, re.Pattern[str]]] = _PATTERNS
) -> tuple[str, dict[str, str]] | None:
    """The engine's wording of ``patterns`` that ``message`` is, and its fields; ``None`` for any
    other text."""
    for wording, pattern in patterns:
        found = pattern.fullmatch(message)
        if found is not None:
            return wording, found.groupdict()
    return None


def _said(fields: dict[str, str]) -> dict[str, str]:
    """``fields`` of an engine sentence with its places and its ``detail`` in the language in use."""
    return {
        name: _(PLACE_WORDS[value]) if name.endswith("place") else _detail(value) if name == "detail" else value
        for name, value in fields.items()
    }


def _detail(text: str) -> str:
    """Why a move, the start position or the deal is wrong (:data:`DETAIL_WORDS`), in the language
    in use, its own ``detail`` too; other text as it is."""
    found = _matched(text, _DETAIL_PATTERNS)
    return text if found is None else _(DETAIL_WORDS[found[0]]).format(**_said(found[1]))


def _bare(error: RecordError) -> str:
    """The engine's sentence without the ``line N:`` it starts with."""
    return str(error).removeprefix(f"line {error.line}: ") if error.line is not None else str(error)


def record_reason(error: RecordError) -> str:
    """What is wrong with a record, in the language in use: ``line 5: move 1 (7S) is not legal: …``
    (a first line that is wrong says so without the line number)."""
    found = _matched(_bare(error))
    if found is None:
        return str(error)  # not the engine's words: the cli's own, translated already
    wording, fields = found
    reason = _(ENGINE_WORDS[wording]).format(**_said(fields))
    if error.line is None or wording == NOT_A_RECORD:
        return reason
    return _("line {line}: {reason}").format(line=error.line, reason=reason)


def unreadable_record(path: Path | str, error: RecordError) -> str:
    """Why the record ``path`` cannot be read, in one sentence naming it, the way
    :func:`cli.storage.unreadable_words` says it for a file that cannot be read at all."""
    found = _matched(_bare(error))
    if found is not None and found[0] == NOT_A_RECORD:
        return _("{file} is not a saved game: {error}").format(file=path, error=record_reason(error))
    return _("{file} is damaged: {error}").format(file=path, error=record_reason(error))
