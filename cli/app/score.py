"""A match: a series of games, its score and who deals next (rules.md, Matches), and the
running score of the session across rematches ("Play again?").

Scores are kept in half points so that draws stay exact:

>>> from engine import Outcome, Reason
>>> match = MatchScore(games=3, me=0)
>>> match.finish_game(dealer=1, outcome=Outcome(0, Reason.OUT))
>>> match.next_dealer, match.score_text("You", "AI")
(1, 'You 1 - AI 0')
>>> match.finish_game(dealer=1, outcome=Outcome(None, Reason.LAST_CARD))
>>> match.next_dealer, match.score_text("You", "AI"), match.over
(0, 'You 1½ - AI ½', False)
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from cli.i18n import _
from engine import Outcome
from engine.match_rules import next_dealer, score_halves


def points_text(halves: int) -> str:
    """Half points as people write them: ``0``, ``½``, ``2½``.

    >>> [points_text(h) for h in range(4)]
    ['0', '½', '1', '1½']
    """
    whole, half = divmod(halves, 2)
    if not half:
        return str(whole)
    return f"{whole}½" if whole else "½"


@dataclass
class MatchScore:
    """``games`` games between seat ``me`` (this terminal) and the opponent.

    ``played`` counts finished games, ``halves`` holds each seat's score in
    half points, and ``next_dealer`` is the seat dealing the next game
    (``None`` before the first one: the opponent chooses it fairly).
    ``earlier`` holds the seats' half points from the session's earlier
    matches (:meth:`rematch` carries them), ``matches`` how many there were.
    """

    games: int = 1
    me: int = 0
    played: int = 0
    halves: list[int] = field(default_factory=lambda: [0, 0])
    next_dealer: int | None = None
    earlier: tuple[int, int] = (0, 0)
    matches: int = 0
    winners: list[int | None] = field(default_factory=list)
    """The winner of each finished game (``None``: a draw), in order."""

    @property
    def number(self) -> int:
        """The number of the game being played (or about to be), from 1."""
        return min(self.played + 1, self.games)

    @property
    def over(self) -> bool:
        """Whether every game of the match has been played."""
        return self.played >= self.games

    def finish_game(self, dealer: int, outcome: Outcome) -> None:
        """Score a finished game: the loser deals next; after a draw the deal passes."""
        self._score(dealer, outcome.winner)

    def award(self, dealer: int, seat: int) -> None:
        """Score a game won by ``seat`` by forfeit: the loser deals next.

        >>> match = MatchScore(games=3, me=1)
        >>> match.award(dealer=1, seat=1)
        >>> match.played, match.score_text("You", "Bob"), match.next_dealer
        (1, 'You 1 - Bob 0', 0)
        """
        self._score(dealer, seat)

    def overturn(self, game: int, seat: int) -> None:
        """Score game number ``game``, finished already, as won by ``seat`` by forfeit in place of
        its result (the peer away since before its end: docs/protocol.md, "The game a forfeit
        awards"); the match ends with it, so who would deal next stays as it was.

        >>> from engine import Reason
        >>> match = MatchScore(games=3)
        >>> match.finish_game(dealer=0, outcome=Outcome(None, Reason.LAST_CARD))
        >>> match.overturn(game=1, seat=0)
        >>> match.played, match.score_text("You", "Bob")
        (1, 'You 1 - Bob 0')
        """
        for side, (was, now) in enumerate(zip(score_halves(self.winners[game - 1]), score_halves(seat), strict=True)):
            self.halves[side] += now - was
        self.winners[game - 1] = seat

    def _score(self, dealer: int, winner: int | None) -> None:
        self.played += 1
        self.winners.append(winner)
        for seat, halves in enumerate(score_halves(winner)):
            self.halves[seat] += halves
        self.next_dealer = next_dealer(dealer, winner)

    def score_text(self, my_name: str, their_name: str) -> str:
        """``You 1½ - AI ½``, the local player first."""
        me, them = self.halves[self.me], self.halves[1 - self.me]
        return f"{my_name} {points_text(me)} - {their_name} {points_text(them)}"

    @property
    def decided(self) -> bool:
        """Whether the match has a result: every game played, or a lead that the games left (a
        point each at most) cannot make up, so that no way of playing them changes the winner.
        A match that ends early (a peer left) without it has no winner."""
        lead = abs(self.halves[0] - self.halves[1])
        return self.over or lead > 2 * (self.games - self.played)

    def winner_text(self, their_name: str) -> str:
        """Who won the match (once :attr:`decided`): ``You win the match``, or a draw."""
        me, them = self.halves[self.me], self.halves[1 - self.me]
        if me == them:
            return _("The match is drawn")
        return _("You win the match") if me > them else _("{name} wins the match").format(name=their_name)

    def ended_text(self, score: str, their_name: str) -> str:
        """The match as it ended, with its ``score`` as shown: its winner once :attr:`decided`
        (``Match over: You win the match (You 2 - Bob 0)``), else how far it got, naming no
        winner (``Match over after game 1 of 3: You 0 - Bob 1``)."""
        if self.decided:
            return _("Match over: {winner} ({score})").format(winner=self.winner_text(their_name), score=score)
        if not self.played:
            return _("Match over before any of its {games} games counted: {score}").format(
                games=self.games, score=score
            )
        return _("Match over after game {played} of {games}: {score}").format(
            played=self.played, games=self.games, score=score
        )

    def session_text(self, my_name: str, their_name: str) -> str:
        """The running score of every game of the session, this match's too: ``You 3 - AI 1``.

        >>> match = MatchScore(games=1)
        >>> match.award(dealer=0, seat=0)
        >>> match.rematch().session_text("You", "AI")
        'You 1 - AI 0'
        """
        me, them = (
            self.earlier[self.me] + self.halves[self.me],
            self.earlier[1 - self.me] + self.halves[1 - self.me],
        )
        return f"{my_name} {points_text(me)} - {their_name} {points_text(them)}"

    def headline(self, my_name: str, their_name: str) -> str:
        """The score the screen shows, the same in the title and at the end of a game: the
        session's running score for single games, else the match's (and, after a rematch,
        every game's)."""
        if self.games == 1:
            return self.session_text(my_name, their_name)
        if not self.matches:
            return self.score_text(my_name, their_name)
        return _("{match} (all games: {total})").format(
            match=self.score_text(my_name, their_name), total=self.session_text(my_name, their_name)
        )

    def with_award(self, seat: int) -> MatchScore:
        """The match as it would stand if ``seat`` won the game in play by forfeit and the match ended."""
        after = replace(self, halves=list(self.halves), winners=list(self.winners))
        after.award(self.next_dealer or 0, seat)
        return after

    def rematch(self) -> MatchScore:
        """A new match of the same length; the loser of the last game still deals, and the
        session's running score goes on."""
        total = (self.earlier[0] + self.halves[0], self.earlier[1] + self.halves[1])
        return MatchScore(
            self.games, self.me, next_dealer=self.next_dealer, earlier=total, matches=self.matches + 1
        )
