"""A match as a chain of signed links, replayed the same way by both players and by ``trumps verify``.

Every link (commit, reveal, move) is signed by its sender over the running
transcript hash ``T' = H(T, link without sig)``, starting from the session
id, so each signature vouches for the whole history before it. The order of
links is fixed by the state of the match, and :meth:`Match.due` says whose
link of which kind comes next:

- each game: the *opener* (player 0 in odd games, 1 in even ones) commits,
  then the other commits, then the opener reveals, then the other;
- then the moves, each from the player to move, until the game ends;
- after the last game both players sign the final transcript hash,
  player 0 first (:class:`~p2p.messages.Final`, not a link).

:meth:`Match.apply` checks a link completely — turn, kind, game, signature,
commitment, legality, position hash — and raises a :class:`~p2p.errors.CheatError`
naming the violation, with the link kept as evidence. What such evidence proves to
someone holding only a record is judged by :meth:`Match.signed_here` and
:meth:`Match.violation` (docs/protocol.md, "Evidence").
"""

from __future__ import annotations

import copy
import functools
from dataclasses import dataclass
from typing import TypeVar

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from engine import Game, IllegalMoveError, Move, NotationError, Outcome, Position, Rules
from engine.game import result_text
from engine.match_rules import next_dealer, score_halves
from engine.moves import PAIR_MOVES, SINGLE_MOVES
from p2p.crypto import sign, signature_ok, tagged_hash
from p2p.errors import (
    BadSignature,
    CheatError,
    CopiedCommitment,
    HistoryMismatch,
    IllegalMove,
    OutOfTurn,
    PositionHashMismatch,
    ProtocolViolation,
    RevealMismatch,
)
from p2p.fairdeal import Pledge, coin, game_seed, resolve_trumps
from p2p.messages import Commit, Final, MoveMsg, Resume, Reveal, Signed, to_json
from p2p.text import N_, Text
from p2p.wire import encode

S = TypeVar("S", bound=Signed)
_MOVES = {str(move): move for move in (*SINGLE_MOVES, *PAIR_MOVES)}
"""Every move by its canonical text, the only form a move message may carry (read without parsing)."""


@functools.lru_cache(maxsize=4)
def position_hash(position: Position) -> bytes:
    """The hash a move message carries of the position it leads to (kept for the last few
    positions: the mover hashes the position its move leads to, then checks it as it applies it)."""
    return tagged_hash("position", position.notation().encode())


@dataclass(frozen=True)
class GameResult:
    """A finished game of the match."""

    number: int
    dealer: int
    trumps: str
    seed: bytes
    outcome: Outcome
    game: Game
    """The game as played, with its moves."""
    links: int
    """How many links the record held once the game was over (its ending link the last)."""

    @property
    def text(self) -> str:
        """``1-0 out``, ``1/2-1/2 repetition``…, player 0's score first."""
        return result_text(self.outcome)


class Match:
    """The state of a match, advanced one verified link at a time."""

    def __init__(
        self,
        session_id: bytes,
        keys: tuple[bytes, bytes],
        rules: Rules,
        games: int,
        dealer: int | None = None,
    ) -> None:
        self.session_id = session_id
        """The root of the chain: the handshake's session id, or :func:`rematch_root`."""
        self.keys = keys
        self.rules = rules
        self.games = games
        self.transcript = session_id
        """The running transcript hash."""
        self.links: list[tuple[int, Signed]] = []
        """Every accepted link and final signature, with its sender's seat."""
        self._history: list[bytes] = []
        """The transcript hash after each entry of :attr:`links`."""
        self.number = 1
        """The number of the game being set up or played."""
        self.dealer = dealer
        """The dealer of the current game; for a first game ``None`` until the coin falls."""
        self.trumps = ""
        self.seed = b""
        self.game: Game | None = None
        self.results: list[GameResult] = []
        self._commits: dict[int, bytes] = {}
        self._reveals: dict[int, Reveal] = {}
        self._finals: dict[int, bytes] = {}
        self._own: tuple[Signed, bytes, str, bytes] | None = None
        """The link :meth:`sign` just made, the transcript it was made on, the tag and digest it
        signed: applying it there needs no signature check, nor its digest again."""

    # ------------------------------------------------------------- whose turn

    @property
    def opener(self) -> int:
        """Who commits and reveals first in the current game."""
        return (self.number - 1) % 2

    def due(self) -> tuple[type[Signed], int] | None:
        """The kind of link due next and the seat that must send it; ``None`` when done."""
        if len(self.results) == self.games:
            missing = [seat for seat in (0, 1) if seat not in self._finals]
            return (Final, missing[0]) if missing else None
        if self.game is not None:
            return MoveMsg, self.game.position.turn
        order = (self.opener, 1 - self.opener)
        for seat in order:
            if seat not in self._commits:
                return Commit, seat
        for seat in order:
            if seat not in self._reveals:
                return Reveal, seat
        raise AssertionError("both revealed but no game")  # pragma: no cover

    @property
    def done(self) -> bool:
        """Whether every game is played and both final signatures are in."""
        return self.due() is None

    @property
    def revealed(self) -> bool:
        """Whether both reveals of the current game are in (the deal is known)."""
        return self.game is not None

    def deal_known_to(self, seat: int) -> bool:
        """Whether ``seat`` can know the current deal: the other player's reveal is in.

        The second revealer can compute the deal before sending its own reveal,
        so leaving then is leaving a deal it has seen.
        """
        return self.game is not None or (1 - seat) in self._reveals

    def forfeited_game(self, seat: int) -> int | None:
        """The game a forfeit of ``seat`` awards (docs/protocol.md, "The game a forfeit awards"):
        the first game not over at ``seat``'s last link in this record, whatever links of the other
        side came after it; ``None`` when every game was over by then.

        The other side's later links may be missing from ``seat``'s own record (lost with the
        line), so only this count gives the same game in both players' records.
        """
        held = max((index + 1 for index, (sender, _) in enumerate(self.links) if sender == seat), default=0)
        over = sum(result.links <= held for result in self.results)
        return over + 1 if over < self.games else None

    @property
    def finals(self) -> tuple[bytes, bytes] | None:
        """Both players' signatures over the final transcript, once both are in."""
        if len(self._finals) < 2:
            return None
        return self._finals[0], self._finals[1]

    @property
    def score(self) -> tuple[float, float]:
        """Points of player 0 and player 1: 1 a win, ½ a draw."""
        halves = [score_halves(result.outcome.winner) for result in self.results]
        return sum(h[0] for h in halves) / 2, sum(h[1] for h in halves) / 2

    def transcript_at(self, count: int) -> bytes:
        """The transcript hash after the first ``count`` links (the root for 0)."""
        return self._history[count - 1] if count else self.session_id

    # ---------------------------------------------------------------- resuming

    def resume_claim(self, key: Ed25519PrivateKey) -> Resume:
        """Our signed statement of how much of this match we hold, for a reconnection."""
        return sign_resume(key, self.session_id, len(self.links), self.transcript)

    def check_resume(self, claim: Resume, sender: int) -> bool:
        """Check the peer's :meth:`resume_claim` against our history; whether it can be judged yet.

        ``False`` means the peer holds more links than we do: they are checked as they are
        resent, and the claim once we hold as many (:meth:`check_resume` again). Raises
        :class:`HistoryMismatch` (the claim kept as evidence) when the peer's history differs.
        """
        try:
            if not self._resume_signed(claim, sender):
                raise BadSignature(
                    Text(N_("player {seat}'s resume message has a bad signature"), seat=sender)
                )
            if claim.root != self.session_id:
                raise HistoryMismatch(
                    Text(N_("player {seat} came back to resume another match"), seat=sender)
                )
            if claim.links > len(self.links):
                return False
            if self.transcript_at(claim.links) != claim.transcript:
                raise HistoryMismatch(
                    f"player {sender} came back with another history of the match: its transcript "
                    f"after {claim.links} link(s) differs from ours"
                )
            if any(by != 1 - sender for by, _ in self.links[claim.links :]):
                raise HistoryMismatch(
                    f"player {sender} came back holding {claim.links} link(s), fewer than it sent us: "
                    "it lost or rewrote part of the match"
                )
        except CheatError as exc:
            exc.evidence = {"by": sender, **to_json(claim)}
            raise
        return True

    # --------------------------------------------------------------- evidence

    def signed_here(self, message: Signed, sender: int) -> bool:
        """Whether ``message`` carries ``sender``'s valid signature, bound to this match as it stands.

        A link must be signed over the current transcript, a final over this match's root and
        the current transcript, a resume claim over this match's root. Nothing else can say
        anything about this match at this point, whoever wrote it down.
        """
        if isinstance(message, Resume):
            return message.root == self.session_id and self._resume_signed(message, sender)
        if isinstance(message, Final) and message.transcript != self.transcript:
            return False
        return signature_ok(self.keys[sender], *self._digest(message), message.sig)

    def violation(self, message: Signed, sender: int) -> CheatError | None:
        """The violation that ``message``, :meth:`signed_here` by ``sender``, proves against it.

        ``None`` when the record's own signed links at this point show no contradiction: a link
        that is simply the next one, a copy of one already held, a resume claim consistent
        with everything ``sender`` signed. The state of the match is left as it is.
        """
        if (sender, message) in self.links:
            return None
        if isinstance(message, Final) and (due := self.due()) is not None and due[0] is Final:
            return None  # finals are not links: no signature shows which of the two came first
        if isinstance(message, Resume):
            return self._equivocation(message, sender)
        trial = copy.deepcopy(self)
        try:
            trial.apply(message, sender)
        except CheatError as exc:
            return exc
        return None

    def _resume_signed(self, claim: Resume, sender: int) -> bool:
        return signature_ok(self.keys[sender], "resume-sig", _resume_digest(claim), claim.sig)

    def _equivocation(self, claim: Resume, sender: int) -> HistoryMismatch | None:
        """A claim of another history than one ``sender`` signed a link over.

        ``sender``'s own link at position ``claim.links`` or later was signed over a transcript
        that extends ours after ``claim.links`` links, so a claim of another transcript there
        contradicts its own signature. Nothing else about a claim is provable from a record:
        when the peer sent it is the saver's word (an honest claim of an earlier reconnection
        holds fewer links than came later), and after a link of the saver's the saver could
        have shown the peer another link than the one in its record.
        """
        count = claim.links
        if count > len(self.links) or self.transcript_at(count) == claim.transcript:
            return None
        if all(by != sender for by, _ in self.links[max(count - 1, 0) :]):
            return None
        template = N_(
            "player {seat} signed two histories of this match: its resume message gives another "
            "transcript after {count} link(s) than its own signed links do"
        )
        return HistoryMismatch(Text(template, seat=sender, count=count))

    # ----------------------------------------------------------------- links

    def _digest(self, message: Signed) -> tuple[str, bytes]:
        """What ``message``'s signature covers, and the tag it is signed under."""
        if isinstance(message, Final):
            return "final-sig", final_digest(self.session_id, message.transcript)
        return "link-sig", tagged_hash("link", self.transcript, encode(message.body()))

    def sign(self, key: Ed25519PrivateKey, unsigned: S) -> S:
        """``unsigned`` (any ``sig``) signed by ``key`` as the next link."""
        tag, digest = self._digest(unsigned)
        signed = unsigned.with_sig(sign(key, tag, digest))
        self._own = (signed, self.transcript, tag, digest)
        return signed

    def apply(self, message: Signed, sender: int) -> None:
        """Check ``message`` from ``sender`` and advance; :class:`CheatError` if it is wrong."""
        try:
            self._apply(message, sender)
        except CheatError as exc:
            exc.evidence = {"by": sender, **to_json(message)}
            raise

    def _apply(self, message: Signed, sender: int) -> None:
        due = self.due()
        if due is None:
            template = N_("player {seat} sent a {tag!r} after the match ended")
            raise ProtocolViolation(Text(template, seat=sender, tag=message.TAG))
        kind, seat = due
        if sender != seat:
            if kind is MoveMsg and isinstance(message, MoveMsg):
                template = N_("player {sender} sent move {number} but player {seat} is to move")
                raise OutOfTurn(Text(template, sender=sender, number=message.n, seat=seat))
            template = N_("player {sender} sent a {tag!r} while player {seat}'s was due")
            raise ProtocolViolation(Text(template, sender=sender, tag=message.TAG, seat=seat))
        if not isinstance(message, kind):
            template = N_("player {sender} sent a {tag!r} where a {due!r} was due")
            raise ProtocolViolation(Text(template, sender=sender, tag=message.TAG, due=kind.TAG))
        if isinstance(message, Commit | Reveal | MoveMsg) and message.game != self.number:
            template = N_("a {tag!r} for game {game} during game {number}")
            raise ProtocolViolation(Text(template, tag=message.TAG, game=message.game, number=self.number))
        own = self._own
        if own is not None and message is own[0] and own[1] == self.transcript:
            tag, digest = own[2], own[3]
        else:
            tag, digest = self._digest(message)
            if not signature_ok(self.keys[sender], tag, digest, message.sig):
                template = N_("player {seat}'s {what} has a bad signature")
                raise BadSignature(Text(template, seat=sender, what=_describe(message)))
        if isinstance(message, Final):
            if message.transcript != self.transcript:
                raise ProtocolViolation(
                    Text(N_("player {seat} signed another final transcript than ours"), seat=sender)
                )
            self._finals[sender] = message.sig
            self.links.append((sender, message))
            self._history.append(self.transcript)
            return
        if isinstance(message, Commit):
            self._commit(message, sender)
        elif isinstance(message, Reveal):
            self._reveal(message, sender)
        elif isinstance(message, MoveMsg):
            self._move(message)
        self.transcript = digest
        self.links.append((sender, message))
        self._history.append(digest)
        if self.game is not None and self.game.result is not None:
            self._end_game(self.game.result)

    def _commit(self, message: Commit, sender: int) -> None:
        if self._commits.get(1 - sender) == message.commitment:
            template = N_("player {seat}'s commitment for game {number} copies the other's")
            raise CopiedCommitment(Text(template, seat=sender, number=self.number))
        self._commits[sender] = message.commitment

    def _reveal(self, message: Reveal, sender: int) -> None:
        pledge = Pledge(message.pref, message.secret)
        if pledge.commitment(self.session_id, self.number, sender) != self._commits[sender]:
            raise RevealMismatch(
                f"player {sender}'s reveal for game {self.number} does not match their commitment"
            )
        self._reveals[sender] = message
        if len(self._reveals) == 2:
            secrets = (self._reveals[0].secret, self._reveals[1].secret)
            if self.dealer is None:
                self.dealer = coin(self.session_id, secrets)
            self.seed = game_seed(self.session_id, self.number, secrets)
            self.trumps = resolve_trumps((self._reveals[0].pref, self._reveals[1].pref), self.dealer)
            self.game = Game.from_deal(
                self.seed, self.dealer, self.trumps, self.rules, Game=f"{self.number} of {self.games}"
            )

    def _move(self, message: MoveMsg) -> None:
        assert self.game is not None
        game = self.game
        if message.n != len(game.moves) + 1:
            template = N_("move number {number} where {due} was due")
            raise ProtocolViolation(Text(template, number=message.n, due=len(game.moves) + 1))
        try:
            move = _MOVES.get(message.move) or Move.parse(message.move)
            after = game.position.play(move)
        except (NotationError, IllegalMoveError) as exc:
            template = N_("move {number} ({move}) is not legal: {error}")
            raise IllegalMove(Text(template, number=message.n, move=message.move, error=exc)) from None
        if str(move) != message.move:
            template = N_("move {number} ({move}) is not written in canonical form")
            raise IllegalMove(Text(template, number=message.n, move=message.move))
        if position_hash(after) != message.hash:
            raise PositionHashMismatch(
                f"after move {message.n} ({message.move}) the sender's position hash differs from ours "
                f"({after.notation()}): the games have diverged"
            )
        game.play(move)

    def _end_game(self, outcome: Outcome) -> None:
        assert self.dealer is not None and self.game is not None
        result = GameResult(self.number, self.dealer, self.trumps, self.seed, outcome, self.game, len(self.links))
        self.results.append(result)
        if len(self.results) < self.games:
            self.dealer = next_dealer(self.dealer, outcome.winner)
            self.number += 1
            self.game = None
            self._commits, self._reveals = {}, {}


def final_digest(root: bytes, transcript: bytes) -> bytes:
    """What a final signature covers: the end ``transcript`` of the match rooted at ``root``."""
    return tagged_hash("final", root, transcript)


def rematch_root(session_id: bytes, transcript: bytes, dealer: int) -> bytes:
    """The chain root of a rematch, in session ``session_id``, of a match that ended with ``transcript``.

    The session (whose handshake the rematch's record carries: names, rules, game count) and
    the first dealer are part of it, so every signature of the rematch vouches for both.
    """
    return tagged_hash("rematch", session_id, transcript, bytes([dealer]))


def rematch_of(previous: Match, session_id: bytes) -> tuple[bytes, int]:
    """The root and first dealer of a rematch of the finished ``previous`` in session ``session_id``.

    The loser of the last game deals first.
    """
    last = previous.results[-1]
    dealer = next_dealer(last.dealer, last.outcome.winner)
    return rematch_root(session_id, previous.transcript, dealer), dealer


def sign_resume(key: Ed25519PrivateKey, root: bytes, links: int, transcript: bytes) -> Resume:
    """A resume claim: holding ``links`` links of the match rooted at ``root``, ending in ``transcript``."""
    unsigned = Resume(root=root, links=links, transcript=transcript, sig=b"")
    return unsigned.with_sig(sign(key, "resume-sig", _resume_digest(unsigned)))


def _resume_digest(claim: Resume) -> bytes:
    return tagged_hash("resume", claim.root, claim.links.to_bytes(4, "big"), claim.transcript)


def _describe(message: Signed) -> str:
    if isinstance(message, MoveMsg):
        return f"move {message.n} of game {message.game} ({message.move})"
    if isinstance(message, Commit | Reveal):
        return f"{message.TAG} for game {message.game}"
    return f"{message.TAG} message"
