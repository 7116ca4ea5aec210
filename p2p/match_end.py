"""How a match that stops ends: the end note of our record, the seat awarded the game, and what
the peer is told (docs/protocol.md, "Forfeits", "Leaving after the deal", "Coming back after
the limit", "Exit routes").

A sans-I/O table: it is fed what ended the match (the error :class:`~p2p.duel.Duel` caught, or
our player leaving), our seat, where the match stood (:class:`Standing`) and the clock's
judgements as plain values, and returns an :class:`Ending`; the duel writes the note and tells
the peer.

>>> dealt = Standing(game=2, unfinished=True, deal_known=(True, True), forfeits=(2, 2))
>>> ending = match_end(PeerAborted("quit", "the player left"), seat=0, standing=dealt)
>>> ending.end, ending.awarded  # the peer left a deal it had seen: the game is ours
('abandoned', 0)
>>> quit_ending(seat=0, standing=dealt, live=True).note["winner"]  # and ours when we leave
1
>>> late_return_end(200.0, 180.0, False, dealt, seat=1)["winner"]  # game 2 lost by forfeit
0
>>> late_return_end(5.0, 180.0, False, dealt, seat=1) is None  # within the limit: it goes on
True
"""

from __future__ import annotations

from dataclasses import dataclass

from p2p.errors import (
    CheatError,
    ConnectionClosed,
    Forfeit,
    MatchLost,
    P2PError,
    PeerAborted,
    PeerBusy,
    PeerTimeout,
    WireError,
)
from p2p.match import Match
from p2p.messages import Abort


@dataclass(frozen=True)
class Standing:
    """Where an unfinished match stood when it stopped: all an end note depends on."""

    game: int
    """The number of the game being set up or played (:attr:`Match.number`)."""
    unfinished: bool
    """A game is left to award: not every game is played (only a final signature missing)."""
    deal_known: tuple[bool, bool]
    """Whether each seat could know the current deal (:meth:`Match.deal_known_to`)."""
    forfeits: tuple[int | None, int | None]
    """The game a forfeit of each seat awards (:meth:`Match.forfeited_game`): an earlier one than
    :attr:`game` when the other seat's links that ended it came after the forfeiting seat's last."""

    @classmethod
    def of(cls, match: Match) -> Standing:
        """Where ``match`` stands now."""
        return cls(
            match.number,
            len(match.results) < match.games,
            (match.deal_known_to(0), match.deal_known_to(1)),
            (match.forfeited_game(0), match.forfeited_game(1)),
        )

    def award(self, note: dict[str, object], winner: int) -> dict[str, object]:
        """``note`` awarding the unfinished game to ``winner`` (its ``game`` and ``winner``); as it
        is when every game was played."""
        if self.unfinished:
            return note | {"game": self.game, "winner": winner}
        return note

    def forfeit(self, note: dict[str, object], by: int) -> dict[str, object]:
        """``note`` awarding the game a forfeit of ``by`` costs it to the other seat (its ``game``
        and ``winner``); as it is when every game was over at ``by``'s last link."""
        game = self.forfeits[by]
        return note if game is None else note | {"game": game, "winner": 1 - by}

    def when(self, error: P2PError, seat: int) -> str:
        """``error``, with whether the peer of ``seat`` knew the deal when it happened."""
        if self.deal_known[1 - seat]:
            return f"{error} (after the deal of game {self.game} was revealed)"
        return f"{error} (before the deal of game {self.game})"


@dataclass(frozen=True)
class Ending:
    """How the match ends, for our record and the report."""

    end: str
    """The report's end (:attr:`~p2p.duel.Report.end`), the note's ``end`` when there is a note."""
    note: dict[str, object] | None
    """The record's end note; ``None`` for a complete match."""
    awarded: int | None = None
    """The seat awarded a game, if any."""
    tell: Abort | None = None
    """What the peer is told before the connection closes, if anything."""
    awarded_game: int | None = None
    """The number of the game awarded: the unfinished one, or one the peer's absence forfeits
    after our own links ended it (:meth:`Match.forfeited_game`)."""


COMPLETE = Ending("complete", None)
"""A match played to both finals."""


def match_end(
    error: P2PError,
    seat: int,
    standing: Standing,
    claim_grounded: bool = False,
    away: float = 0.0,
    limit: float = 0.0,
) -> Ending:
    """How the match ends when ``error`` stopped it, we holding ``seat``.

    ``claim_grounded``: whether a forfeit claim of the peer heard now may be honest
    (:meth:`Liveness.claim_has_grounds`); ``away`` and ``limit``: how long the peer has been away
    and the forfeit limit, which judge the host's ``busy`` to our return (:func:`late_return_end`).
    """
    peer, when = 1 - seat, standing.when(error, seat)
    if isinstance(error, Forfeit):  # we claimed the game
        absent = peer if error.award else seat
        note: dict[str, object] = {"end": "forfeit", "detail": when, "by": absent}
        if not error.award:  # the peer may have claimed our stall or silence, its claim lost with the line
            note["detail"] = f"{when}; but this side had owed its link or sent nothing that long first"
        note = standing.forfeit(note, absent)
        tell = Abort(reason="forfeit", detail=str(error)[:300])
        if "winner" not in note:  # every game is played: only the peer's final is missing
            return Ending("abandoned", note | {"end": "abandoned"}, None, tell)
        return _awarding(note, tell)
    if isinstance(error, CheatError):
        note = {"end": "cheat", "detail": str(error), "by": peer, "evidence": error.evidence}
        return _left_after_deal(note, peer, standing, Abort(reason="cheat", detail=str(error)[:300]))
    if isinstance(error, PeerAborted):
        if error.reason == "forfeit" and claim_grounded:  # we stalled or stopped
            return _awarding(standing.forfeit({"end": "forfeit", "detail": when, "by": seat}, seat))
        end = "abandoned" if error.reason in ("quit", "forfeit") else "aborted"  # a baseless claim is a quit
        return _left_after_deal({"end": end, "detail": when, "by": peer}, peer, standing)
    if isinstance(error, WireError):
        detail = f"the connection was corrupted in transit: {error}"
        return Ending("corrupted", {"end": "corrupted", "detail": detail, "by": None})
    if isinstance(error, ConnectionClosed | PeerTimeout):
        return Ending("abandoned", {"end": "abandoned", "detail": when, "by": peer})
    if isinstance(error, PeerBusy):  # the host's sealed word, on our return, that our match is over
        told = late_return_end(away, limit, True, standing, seat)
        assert told is not None  # told over, the match is over
        return _awarding(told)
    # the way back to the peer was refused (busy, another key…), or the peer wants a match we lost
    sorry = Abort(reason="lost", detail="this program has no match to resume")
    return Ending(
        "aborted",
        {"end": "aborted", "detail": when, "by": None},
        None,
        sorry if isinstance(error, MatchLost) else None,
    )


def quit_ending(seat: int, standing: Standing, live: bool) -> Ending:
    """How the match ends when our player leaves it: a game whose deal we could know goes to the
    peer, in our record too; the peer is told, over a ``live`` connection."""
    tell = Abort(reason="quit", detail="the player left") if live else None
    return _left_after_deal({"end": "quit", "detail": "this side left", "by": seat}, seat, standing, tell)


def failure_note(seat: int, failure: Exception) -> dict[str, object]:
    """Our record's end note when this program failed (the failure then surfaces)."""
    return {"end": "error", "detail": f"this side failed: {failure!r}", "by": seat}


def late_return_end(
    away: float, limit: float, over: bool, standing: Standing, seat: int
) -> dict[str, object] | None:
    """The end note of an unfinished match, standing at ``standing``, which we (in ``seat``) come
    back to after ``away`` seconds, with our forfeit ``limit``; ``None`` when it goes on. ``over``:
    the host answered our return with its sealed ``busy`` (our match is over).

    The peer may have claimed the game while we were away; no protocol without a third party can
    tell us whether it did when the peer is gone, so we judge on our own clock, as the peer judged
    on its own: away past our limit, the game counts as lost by forfeit in our books too (on the
    peer's word, or presumed). The host's sealed word that the match is over, heard before our
    limit, is the host ending the match on its own authority.

    >>> fresh = Standing(game=1, unfinished=True, deal_known=(False, False), forfeits=(1, 1))
    >>> late_return_end(5.0, 180.0, True, fresh, seat=1)["end"]  # the host ended it early
    'abandoned'
    """
    peer = 1 - seat
    if away >= limit:
        why = "the host says the match is over" if over else "the peer may have claimed the game"
        detail = f"this side was away for {away:.0f} s, past its {limit:g} s limit: {why}"
        return standing.forfeit({"end": "forfeit", "detail": detail, "by": seat}, seat)
    if not over:
        return None
    detail = (
        f"the host ended the match when this side came back after {away:.0f} s, within its {limit:g} s limit"
    )
    note: dict[str, object] = {"end": "abandoned", "detail": detail, "by": peer}
    return standing.award(note, seat) if standing.deal_known[peer] else note


def _left_after_deal(
    note: dict[str, object], leaver: int, standing: Standing, tell: Abort | None = None
) -> Ending:
    """The ending when ``leaver`` (either side) ended the match on its own authority.

    Whatever reason it gives (or a violation it signed), a player who could know the deal of an
    unfinished game leaves it lost, and its own record says so too: otherwise seeing a bad deal
    and walking away would pay (docs/protocol.md, "Leaving after the deal").
    """
    if standing.deal_known[leaver]:
        note = standing.award(note, 1 - leaver)
    return _awarding(note, tell)


def _awarding(note: dict[str, object], tell: Abort | None = None) -> Ending:
    """The ending a ``note`` says: its end, and the seat it awards the game to."""
    winner, game = note.get("winner"), note.get("game")
    if not isinstance(winner, int) or not isinstance(game, int):
        return Ending(str(note["end"]), note, None, tell)
    return Ending(str(note["end"]), note, winner, tell, game)
