"""Signed match records: written as the match goes, verified from the file alone.

A record is JSON lines (bytes as hex):

1. the header: ``{"record": "your-trumps match", "format": 2, "hello": …, "offer": …,
   "accept": …, "saved_by": seat}`` — the three handshake messages, which fix
   both identity keys, the rules, the game count, the seats and the session id;
   a rematch on the same connection adds ``"rematch_of": {"root", "transcript",
   "finals", "dealer"}``: the previous match's root and end, signed by both, and the
   first dealer;
2. one line per link, in order: ``{"by": seat, "link": message}``; the two
   final signatures come last in a complete match;
3. optionally an ``{"end": reason, "detail": text, "by": seat, "evidence": message}``
   line: the saver's (unsigned) account of how an unfinished match ended. Its evidence
   proves something only where :meth:`Match.signed_here` and :meth:`Match.violation` say so.

Every link is signed over the transcript before it, so any prefix of the
file checks on its own: :func:`verify` replays what is there and says where
it stops.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, BinaryIO

from p2p.crypto import fingerprint, signature_ok
from p2p.errors import CheatError, MatchRecordError, P2PError, WireError
from p2p.files import write_atomically
from p2p.handshake import Session, check_signatures
from p2p.match import Match, final_digest, rematch_of, rematch_root
from p2p.messages import Accept, Hello, Message, Offer, Signed, expect, message_class, parse, specs, to_json
from p2p.text import N_, Text, ntext

RECORD_KIND = "your-trumps match"
FORMAT = 2
MOST_RECORD_BYTES = 64 * 2**20
"""The largest record read: more than a match of 99 games of 1 000 moves each makes."""
END_REASONS = frozenset({"cheat", "forfeit", "abandoned", "aborted", "corrupted", "quit", "error"})
"""What an end note's ``end`` may be (docs/protocol.md, "Records")."""
_HEX = re.compile("(?:[0-9a-f]{2})*")
"""Bytes as a record writes them: lowercase hex digits, two a byte, nothing else."""


def from_hex(value: object) -> bytes:
    """The bytes a record writes as ``value``; :class:`ValueError` unless it is lowercase hex
    (``bytes.fromhex`` alone also takes uppercase and spaces)."""
    if not isinstance(value, str) or not _HEX.fullmatch(value):
        raise ValueError("not lowercase hex")
    return bytes.fromhex(value)


def from_json(obj: object) -> Message:
    """The message a :func:`to_json` map stands for, checked like one from the wire."""
    if not isinstance(obj, dict):
        raise MatchRecordError(Text(N_("a message in the record is not a JSON object")))
    wire = dict(obj)
    try:
        cls = message_class(wire.get("t"))
        for spec in specs(cls):
            value = wire.get(spec.name)
            if spec.type == "bytes" and isinstance(value, str):
                try:
                    wire[spec.name] = from_hex(value)
                except ValueError:
                    raise MatchRecordError(
                        Text(N_("{field} is not lowercase hex"), field=f"{cls.TAG}.{spec.name}")
                    ) from None
        return parse(wire)
    except WireError as exc:
        raise MatchRecordError(str(exc)) from None


class RecordWriter:
    """Keeps one side's record of a match on disk, append-only, as the match goes.

    The header is written atomically first; then every accepted link is appended
    the moment it is applied (one ``write``, no fsync: a crash of this process
    loses nothing already played), and the file is fsynced at checkpoints (a
    deal known, a game over, the end) so that a power cut loses at most the
    moves since the last one. A crash mid-append can only leave a torn last
    line, which :func:`verify` reads as an incomplete record.
    """

    def __init__(
        self, directory: Path, session: Session, match: Match, previous: Match | None = None
    ) -> None:
        """The record of ``match`` (a rematch of ``previous`` if given), named after its chain root."""
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
        peer = session.names[1 - session.seat]
        safe_peer = "".join(c if c.isalnum() or c in "-_" else "_" for c in peer)[:20]
        self.path = directory / f"{stamp}-{safe_peer}-{match.session_id[:4].hex()}.jsonl"
        self.session = session
        self.rematch_of: dict[str, object] | None = None
        if previous is not None and previous.finals is not None:
            _, dealer = rematch_of(previous, session.session_id)
            self.rematch_of = {
                "root": previous.session_id.hex(),
                "transcript": previous.transcript.hex(),
                "finals": [sig.hex() for sig in previous.finals],
                "dealer": dealer,
            }
        self._written: int | None = None
        """Links on disk; ``None`` before the header is."""
        self._file: BinaryIO | None = None
        self.ended = False

    @classmethod
    def continuing(cls, path: Path, session: Session, match: Match) -> RecordWriter:
        """The writer of the unfinished record ``path`` read back after a restart (``match`` is
        what it holds): a torn or zeroed last line is cut off, then appending goes on."""
        writer = cls(path.parent, session, match)
        writer.path = path
        data = path.read_bytes()
        whole = data.rstrip(b"\0")
        whole = whole[: whole.rfind(b"\n") + 1]
        if len(whole) != len(data):
            with open(path, "r+b") as file:
                file.truncate(len(whole))
                os.fsync(file.fileno())
        writer._written = len(match.links)
        return writer

    def _header(self) -> str:
        session = self.session
        header = {
            "record": RECORD_KIND,
            "format": FORMAT,
            "hello": to_json(session.hello),
            "offer": to_json(session.offer),
            "accept": to_json(session.accept),
            "saved_by": session.seat,
        } | ({"rematch_of": self.rematch_of} if self.rematch_of else {})
        return _line(header)

    def append(self, match: Match, end: dict[str, object] | None = None, sync: bool = False) -> None:
        """Add the links of ``match`` not yet written, and ``end`` if it stopped early; fsync if ``sync``."""
        if self.ended:
            return
        if self._written is None:
            write_atomically(self.path, self._header().encode())
            self._written = 0
        rows = [{"by": by, "link": to_json(link)} for by, link in match.links[self._written :]]
        if end is not None:
            if not match.done:  # a complete match has no end note (the line may drop after the end)
                rows.append(end)
            self.ended = True
        if not rows and not sync:
            return
        if self._file is None:
            self._file = open(self.path, "ab")  # noqa: SIM115 (kept open across appends: ~1 µs a move)
        file = self._file
        size = file.tell()
        try:
            file.write("".join(_line(row) for row in rows).encode())
            file.flush()
            if sync:
                os.fsync(file.fileno())
        except OSError:
            file.truncate(size)  # no torn line in the middle of later appends
            raise
        self._written = len(match.links)
        if self.ended:
            self.close()

    def close(self) -> None:
        """Close the file (appending again reopens it)."""
        if self._file is not None:
            self._file.close()
            self._file = None

    def save(self, match: Match, end: dict[str, object] | None = None) -> None:
        """A checkpoint: :meth:`append` and fsync."""
        self.append(match, end, sync=True)

    def touch(self) -> None:
        """The peer was heard: the record's modification time says when, so that a program
        restarted after a crash can tell how long it was away (:mod:`p2p.late_return`)."""
        if self._written is not None and not self.ended:
            with contextlib.suppress(OSError):  # a record that cannot be touched fails at its next write
                os.utime(self.path)


def _line(row: dict[str, object]) -> str:
    return json.dumps(row, ensure_ascii=False) + "\n"


@dataclass
class Verified:
    """What :func:`verify` established about a record."""

    session: Session
    match: Match
    complete: bool
    """Every game played and both final signatures present and valid."""
    end: dict[str, Any] | None
    """The saver's note on how an unfinished match ended, if any."""
    evidence_error: CheatError | None
    """The violation the kept evidence proves, re-checked here."""
    evidence_unproven: Text | None
    """Why the kept evidence proves nothing, when the end note has evidence that does not."""
    truncated: bool
    """The file stops in the middle of a line."""
    rematch_of: tuple[bytes, bytes] | None = None
    """For a rematch, the previous match's root and the transcript it ended with (both players'
    final signatures of that end are checked): what :func:`earlier_matches` looks for."""

    @property
    def awarded(self) -> tuple[int, int] | None:
        """The game (by number) and the seat the saver's note awards it to, if it awards one.

        The saver's own, unsigned account (see :meth:`summary_lines`).
        """
        note = self.end or {}
        game, seat = note.get("game"), _seat(note.get("winner"))
        if seat is None or type(game) is not int or not 1 <= game <= self.match.games:
            return None
        return game, seat

    def summary(self) -> str:
        """A few lines for people."""
        return "\n".join(self.summary_lines())

    def summary_lines(self) -> list[Text]:
        """The lines of :meth:`summary`, each keeping its template for translation (:mod:`p2p.text`)."""
        match, names = self.match, self.session.names
        games = ntext("{count} game", "{count} games", match.games)
        lines = [
            Text(
                N_("match {first} (player 0) vs {second} (player 1), {games}, {rules}"),
                first=names[0],
                second=names[1],
                games=games,
                rules=self.session.terms.rules.notation(),
            ),
            Text(N_("session {id}"), id=self.session.session_id.hex()),
        ]
        for seat, (name, key) in enumerate(zip(names, self.session.keys, strict=True)):
            template = N_("player {seat} ({name}): key {fingerprint}")
            lines.append(Text(template, seat=seat, name=name, fingerprint=fingerprint(key)))
        for result in match.results:
            template = N_("game {number}: dealer {dealer}, trumps {trumps}, seed {seed}…: {result}")
            seed = result.seed.hex()[:16]
            lines.append(
                Text(
                    template,
                    number=result.number,
                    dealer=result.dealer,
                    trumps=result.trumps,
                    seed=seed,
                    result=result.text,
                )
            )
        score = " - ".join(f"{s:g}" for s in match.score)
        if self.complete:
            template = N_("complete: score {score}; every signature checks, both players signed the end")
            lines.append(Text(template, score=score))
            lines.append(Text(N_("transcript {transcript}"), transcript=match.transcript.hex()))
            return lines
        if match.game is None:
            where = Text(N_("game {number}"), number=match.number)
        else:
            where = Text(
                N_("game {number}, after move {moves}"), number=match.number, moves=len(match.game.moves)
            )
        template = N_("INCOMPLETE: the record stops in {where} (score so far {score}); what is there checks")
        lines.append(Text(template, where=where, score=score))
        if self.truncated:
            lines.append(Text(N_("the last line is cut off")))
        if self.end is not None:
            note = Text(
                N_("the saver's note: {end}: {detail}"),
                end=self.end.get("end"),
                detail=self.end.get("detail", ""),
            )
            lines.append(note)
            if _seat(self.end.get("winner")) is not None:
                template = N_(
                    "the saver awards game {game} to player {winner} "
                    "(its own account: the other player did not sign it)"
                )
                lines.append(Text(template, game=self.end.get("game"), winner=self.end["winner"]))
        if self.evidence_error is not None:
            lines.append(Text(N_("the kept evidence proves: {error}"), error=self.evidence_error))
        if self.evidence_unproven is not None:
            lines.append(Text(N_("the kept evidence proves nothing: {why}"), why=self.evidence_unproven))
        return lines


def verify(text: str) -> Verified:
    """Check a record completely; :class:`MatchRecordError` names the first line that fails."""
    stripped = text.rstrip("\0")  # a power cut during an append may leave zeros at the end
    raw_lines = stripped.split("\n")
    truncated = bool(raw_lines.pop()) or stripped != text  # a complete file ends with a newline
    rows: list[dict[str, Any]] = []
    for number, line in enumerate(raw_lines, 1):
        try:
            row = json.loads(line)
        except (ValueError, RecursionError):  # RecursionError: arrays nested deeper than the stack
            raise MatchRecordError(Text(N_("line {number}: not JSON"), number=number)) from None
        if not isinstance(row, dict):
            raise MatchRecordError(Text(N_("line {number}: not a JSON object"), number=number))
        rows.append(row)
    if not rows or rows[0].get("record") != RECORD_KIND:
        raise MatchRecordError(Text(N_("line 1: not a trumps match record")))
    if rows[0].get("format") != FORMAT:
        template = N_("line 1: record format {format!r}, this program reads {ours}")
        raise MatchRecordError(Text(template, format=rows[0].get("format"), ours=FORMAT))
    session = _session(rows[0])
    terms = session.terms
    root, dealer, previous = _root(rows[0], session)
    match = Match(root, session.keys, terms.rules, terms.games, dealer)
    end: dict[str, Any] | None = None
    evidence: tuple[CheatError | None, Text | None] = (None, None)
    for number, row in enumerate(rows[1:], 2):
        if end is not None:
            raise MatchRecordError(Text(N_("line {number}: nothing may follow the end note"), number=number))
        if "end" in row:
            end = _end_note(row, number, match)
            if row.get("evidence") is not None:  # null: the violation left no message to keep
                evidence = _judge(match, row["evidence"])
            continue
        by = _seat(row.get("by"))
        if by is None:
            raise MatchRecordError(Text(N_("line {number}: 'by' must be player 0 or 1"), number=number))
        try:
            link = from_json(row.get("link"))
            if not isinstance(link, Signed):
                raise MatchRecordError(Text(N_("a {tag!r} message is not a signed link"), tag=link.TAG))
            match.apply(link, by)
        except (MatchRecordError, CheatError) as exc:
            raise MatchRecordError(Text(N_("line {number}: {error}"), number=number, error=exc)) from None
    return Verified(session, match, match.done, end, *evidence, truncated, previous)


def earlier_matches(directory: Path, verified: Verified) -> list[Verified]:
    """The complete matches that ``verified`` is a rematch of, one after another on the same
    connection, the first match first: each found among the records in ``directory`` by its root
    (the record's name ends in its first 4 bytes) and taken only if it verifies, complete, with
    the root and end transcript the next one's header names, which both players signed. The search
    stops at a match whose record is not there (deleted, or this side never wrote it)."""
    found: list[Verified] = []
    wanted = verified.rematch_of
    while wanted is not None:  # roots never repeat: each one hashes the end of the match before
        previous = _ended_with(directory, *wanted)
        if previous is None:
            break
        found.insert(0, previous)
        wanted = previous.rematch_of
    return found


def _ended_with(directory: Path, root: bytes, transcript: bytes) -> Verified | None:
    """The complete match rooted at ``root`` that ended with ``transcript``, from its record in
    ``directory``; ``None`` when no record there is that (unreadable ones are passed over)."""
    for path in sorted(directory.glob(f"*-{root[:4].hex()}.jsonl")):
        if not os.path.isfile(path):  # a named pipe there would keep us waiting for a writer for ever
            continue
        try:
            candidate = verify(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, MatchRecordError):
            continue
        match = candidate.match
        if candidate.complete and (match.session_id, match.transcript) == (root, transcript):
            return candidate
    return None


def _session(header: dict[str, Any]) -> Session:
    try:
        hello = expect(from_json(header.get("hello")), Hello, "record header")
        offer = expect(from_json(header.get("offer")), Offer, "record header")
        accept = expect(from_json(header.get("accept")), Accept, "record header")
        check_signatures(hello, offer, accept)
    except P2PError as exc:
        raise MatchRecordError(Text(N_("line {number}: {error}"), number=1, error=exc)) from None
    seat = _seat(header.get("saved_by"))
    if seat is None:
        raise MatchRecordError(Text(N_("line 1: 'saved_by' must be player 0 or 1")))
    return Session(hello, offer, accept, seat)


def _end_note(row: dict[str, Any], number: int, match: Match) -> dict[str, Any]:
    """``row``, the end note on line ``number`` after ``match``, if it is one the document
    describes: a reason of :data:`END_REASONS`, ``by`` a seat or ``null``, an unfinished match."""
    if row.get("end") not in END_REASONS:
        template = N_("line {number}: the note's 'end' is not one of the end reasons ({reasons})")
        raise MatchRecordError(Text(template, number=number, reasons=", ".join(sorted(END_REASONS))))
    if "by" not in row or (row["by"] is not None and _seat(row["by"]) is None):
        raise MatchRecordError(Text(N_("line {number}: 'by' must be player 0 or 1, or null"), number=number))
    if match.done:
        raise MatchRecordError(Text(N_("line {number}: a complete match has no end note"), number=number))
    return row


def _root(header: dict[str, Any], session: Session) -> tuple[bytes, int | None, tuple[bytes, bytes] | None]:
    """The chain root and first dealer: the session's, or a rematch's (checked against both finals),
    with the previous match's root and end transcript."""
    previous = header.get("rematch_of")
    if previous is None:
        return session.session_id, None, None
    try:
        previous_root = from_hex(previous["root"])
        transcript = from_hex(previous["transcript"])
        finals = [from_hex(sig) for sig in previous["finals"]]
        dealer = previous["dealer"]
    except (TypeError, KeyError, ValueError):
        raise MatchRecordError(Text(N_("line 1: 'rematch_of' is unreadable"))) from None
    if len(finals) != 2 or _seat(dealer) is None:
        raise MatchRecordError(Text(N_("line 1: 'rematch_of' needs two final signatures and a dealer 0 or 1")))
    for seat in (0, 1):
        if not signature_ok(
            session.keys[seat], "final-sig", final_digest(previous_root, transcript), finals[seat]
        ):
            raise MatchRecordError(
                f"line 1: player {seat}'s signature of the previous match's end does not verify"
            )
    return rematch_root(session.session_id, transcript, dealer), dealer, (previous_root, transcript)


def _judge(match: Match, evidence: object) -> tuple[CheatError | None, Text | None]:
    """What the kept evidence proves at the end of the verified prefix: the violation, or why nothing.

    The note is the saver's own and unsigned: it may hold any message, made up, badly signed,
    copied from another match or another point of this one. Only a message its alleged sender
    signed, bound to this match where the record stops, and contradicted by the record's own
    signed links there proves anything (:meth:`Match.signed_here`, :meth:`Match.violation`).
    """
    by = _seat(evidence.get("by")) if isinstance(evidence, dict) else None
    link = None
    if isinstance(evidence, dict) and by is not None:
        with contextlib.suppress(MatchRecordError):
            link = from_json({k: v for k, v in evidence.items() if k != "by"})
    if by is None or not isinstance(link, Signed):
        return None, Text(N_("it is not a signed message of player 0 or 1"))
    if not match.signed_here(link, by):
        template = N_(
            "it does not carry player {seat}'s valid signature bound to this match where the record stops"
        )
        return None, Text(template, seat=by)
    proof = match.violation(link, by)
    if proof is None:
        return None, Text(N_("it does not contradict anything player {seat} signed"), seat=by)
    return proof, None


def _seat(value: object) -> int | None:
    """``value`` if it is a seat, 0 or 1; JSON's ``0.0`` and ``true`` compare equal but are not.

    >>> _seat(1), _seat(1.0), _seat(True), _seat(2)
    (1, None, None, None)
    """
    return value if type(value) is int and value in (0, 1) else None
