"""How a duel went, in the reader's words: each game ("You won game 1: you were out of cards
first."), why the match ended early ("Ann left the match."), and the score of a series of
matches. What the screen says when a duel ends and what ``trumps host``/``join`` print at
their end, never the record's notation (``0-1 out``, ``abandoned``, ``quit``); and each side told
what is for it (:func:`host_words`).

>>> from engine import Outcome, Reason
>>> game_words(1, Outcome(1, Reason.OUT), me=1, peer="Ann", out_first=1)
'You won game 1: you were out of cards first.'
>>> game_words(2, Outcome(None, Reason.REPETITION), me=1, peer="Ann", out_first=None)
'Game 2 was a draw by repetition: the same position came up a third time.'
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cli.app.cards import suit_text
from cli.app.names import shown_name
from cli.app.score import points_text
from cli.i18n import N_, _, translated
from engine import Outcome, Reason
from engine.cards import SUITS

if TYPE_CHECKING:
    from p2p.duel import Report
    from p2p.match import GameResult, Match


def game_words(number: int, outcome: Outcome, me: int, peer: str, out_first: int | None) -> str:
    """Who won game ``number`` and why, for the player in seat ``me`` (``out_first``: the seat
    that played its last card first, when one did)."""
    if outcome.reason is Reason.OUT:
        if outcome.winner == me:
            return _("You won game {number}: you were out of cards first.").format(number=number)
        return _("{name} won game {number}: {name} was out of cards first.").format(name=peer, number=number)
    if outcome.reason is Reason.LAST_CARD:
        if out_first == me:
            text = _("Game {number} was a draw: you went out, but {name}'s last card beat the top card.")
        else:
            text = _("Game {number} was a draw: {name} went out, but your last card beat the top card.")
        return text.format(number=number, name=peer)
    if outcome.reason is Reason.REPETITION:
        return _("Game {number} was a draw by repetition: the same position came up a third time.").format(
            number=number
        )
    if outcome.reason is Reason.MOVE_CAP:
        return _("Game {number} was a draw: it reached the cap on moves.").format(number=number)
    return _("Game {number} was a draw: both hands were empty.").format(number=number)


def deal_words(dealer: int, trumps: str, me: int, peer: str) -> str:
    """Who dealt a game and which trumps each player had: ``Ann dealt; your trump was ♥, Ann's ♦.``"""
    mine, theirs = (suit_text(SUITS.index(trumps[seat])) for seat in (me, 1 - me))
    if dealer == me:
        text = _("You dealt; your trump was {mine}, {name}'s {theirs}.")
    else:
        text = _("{name} dealt; your trump was {mine}, {name}'s {theirs}.")
    return text.format(name=peer, mine=mine, theirs=theirs)


def result_words(result: GameResult, me: int, peer: str) -> str:
    """A finished game of a match in words: who won and why, who dealt, the trumps."""
    final = result.game.position
    empty = [seat for seat in (0, 1) if not final.hand_sets[seat]]
    out_first = empty[0] if len(empty) == 1 else None
    won = game_words(result.number, result.outcome, me, peer, out_first)
    return f"{won} {deal_words(result.dealer, result.trumps, me, peer)}"


def award_words(report: Report) -> str | None:
    """The game a match that ended early awards, and why (``You won game 2 by forfeit: Ann left
    after the deal.``), saying so when it replaces a played game's result; ``None`` when it awards
    none."""
    if report.awarded is None:
        return None
    me, peer = report.session.seat, shown_name(report.session.peer_name)
    number = report.awarded_game
    if report.replaces_played:
        if report.awarded == me:
            text = _("You won game {number} by forfeit, in place of its result: {why}.")
        else:
            text = _("{name} won game {number} by forfeit, in place of its result: {why}.")
    elif report.awarded == me:
        text = _("You won game {number} by forfeit: {why}.")
    else:
        text = _("{name} won game {number} by forfeit: {why}.")
    return text.format(number=number, name=peer, why=left_why(report))


def left_why(report: Report) -> str:
    """Why the unfinished game of a match that ended early was awarded (``Ann left after the
    deal``), as a clause."""
    from p2p.errors import PeerAborted

    error, peer = report.error, shown_name(report.session.peer_name)
    if report.end == "quit":
        return _("you left after the deal")
    if report.end == "forfeit" and report.awarded != report.session.seat:
        return _("{name} claimed it: you did not move, or were away, for too long").format(name=peer)
    if report.end == "forfeit":
        return _(_CLAIMED_FOR[_cause(error)]).format(name=peer)
    if report.end == "cheat":
        return _("{name} broke the protocol after the deal").format(name=peer)
    if isinstance(error, PeerAborted) and error.reason == "forfeit":
        return _("{name} says you were away too long, and left after the deal").format(name=peer)
    return _("{name} left after the deal").format(name=peer)


_CLAIMED_FOR = {
    "absence": N_("{name} stayed away too long"),
    "stall": N_("{name} did not make its move in time"),
    "lost": N_("{name} came back without the match"),
}
"""Why we claimed a game, by :attr:`p2p.errors.Forfeit.cause`, as a clause."""


def _cause(error: BaseException | None) -> str:
    """How the peer failed us, when ``error`` is our claim (an absence otherwise)."""
    from p2p.errors import Forfeit

    return error.cause if isinstance(error, Forfeit) else "absence"


def ending_words(report: Report) -> str | None:
    """Why the match ended before its end, in one sentence for the reader (``Ann left the
    match.``); ``None`` for a match played to its end."""
    from p2p.errors import ConnectionClosed, Forfeit, PeerAborted, PeerTimeout

    if report.end == "complete":
        return None
    peer, error = shown_name(report.session.peer_name), report.error
    if report.end == "quit":
        return _("You left the match.")
    if isinstance(error, PeerAborted):
        if error.reason == "quit":
            return _("{name} left the match.").format(name=peer)
        if error.reason == "forfeit" and report.end == "forfeit":
            return _("{name} claimed the game by forfeit: you did not move, or were away, for too long.").format(
                name=peer
            )
        if error.reason == "forfeit":
            return _("{name} says you were away too long, and ended the match.").format(name=peer)
        if error.reason == "lost":
            return _(
                "{name}'s program no longer has this match (it was started again without it): the match "
                "ended."
            ).format(name=peer)
        if error.reason == "cheat":
            return _("{name} says your side broke the protocol, and ended the match: {detail}").format(
                name=peer, detail=error.detail
            )
        return _("{name} ended the match: {detail}").format(name=peer, detail=error.detail or error.reason)
    if isinstance(error, Forfeit):
        return _("{why}: the match ended.").format(why=_(_CLAIMED_FOR[error.cause]).format(name=peer))
    if isinstance(error, (ConnectionClosed, PeerTimeout)):
        return _("The connection to {name} was lost and did not come back: the match ended.").format(
            name=peer
        )
    if report.end == "cheat":
        return _(
            "{name} broke the protocol, so the match ended: {error}. The record keeps the proof."
        ).format(name=peer, error=translated(error))
    if report.end == "corrupted":
        return _("The connection to {name} was altered on the way, so the match stopped: {error}").format(
            name=peer, error=translated(error)
        )
    return _("The match with {name} stopped: {error}").format(name=peer, error=translated(error))


def series_score(matches: list[Match], last: Report) -> tuple[int, int]:
    """Half points of the local player and the peer over ``matches`` (complete, the earlier
    matches of the series) and the last one, ``last`` (its awarded game counted)."""
    me = last.session.seat
    halves = [0, 0]
    for match in matches:
        for seat in (0, 1):
            halves[seat] += round(2 * match.score[seat])
    for seat in (0, 1):
        halves[seat] += round(2 * last.score[seat])
    return halves[me], halves[1 - me]


def score_words(mine: int, theirs: int, peer: str) -> str:
    """``you 1½, Ann ½`` from half points."""
    return _("you {mine}, {name} {theirs}").format(
        mine=points_text(mine), name=peer, theirs=points_text(theirs)
    )


HOST_REFUSAL = N_("it did not prove the invite's secret (someone without your invite, or with an old one)")
"""What the host reads instead of :data:`p2p.handshake.INVITE_REFUSAL`, whose advice (ask the
host for a fresh invite) is the joiner's."""


def host_words(text: object) -> str:
    """``text`` translated for the host: words addressed to the joiner said as the host's."""
    from p2p.handshake import INVITE_REFUSAL  # the handshake (and its cryptography) only when said

    return translated(text, {INVITE_REFUSAL: HOST_REFUSAL})
